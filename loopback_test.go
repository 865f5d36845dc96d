package tokenpace_test

import (
	"context"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestLoopbackConnection checks, over real TCP, the connection breakdown of
// a first request, which dials, and of a second one, which reuses the
// connection unless the transport had not got it back yet.
func TestLoopbackConnection(t *testing.T) {
	ts := simulate.StartLoopback(t, simulate.WithModel("m", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}))
	c := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(ts.URL), option.WithHTTPClient(ts.Client),
		option.WithAPIKey("x"), option.WithMaxRetries(0)))
	for i := range 2 {
		s := c.NewStreaming(context.Background(), chat("m", 3))
		drain(t, s, 0)
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("request %d: Err() = %v", i, err)
		}
		tm := s.Timing()
		if i == 0 && (tm.Conn.Reused || tm.Conn.Connect <= 0) {
			t.Errorf("request 0: Conn = %+v, want a dial", tm.Conn)
		}
		if !tm.Conn.Reused && tm.Conn.Connect <= 0 {
			t.Errorf("request %d: Conn = %+v: a new connection without a dial", i, tm.Conn)
		}
		// The transport reports the write from its own goroutine, possibly
		// after the response headers: only its order with Sent is sure.
		if tm.WroteRequest.IsZero() || tm.WroteRequest.Before(tm.Sent) || tm.Headers.Before(tm.Sent) {
			t.Errorf("request %d: Sent %v, WroteRequest %v, Headers %v: want both after Sent", i, tm.Sent, tm.WroteRequest, tm.Headers)
		}
		if len(tm.Chunks) != 3 || tm.OutputTokens != 3 {
			t.Errorf("request %d: %d chunks, %d tokens, want 3, 3", i, len(tm.Chunks), tm.OutputTokens)
		}
	}
}

// TestCloseAfterEndReusesConnection: streams read to their end and closed
// at once (defer stream.Close()) leave their connection to the next
// request: Close lets the rest of the body be read instead of cutting the
// connection. A request may still dial while the transport is putting the
// last connection back, but then both stay for the requests after.
func TestCloseAfterEndReusesConnection(t *testing.T) {
	ts := simulate.StartLoopback(t, simulate.WithModel("m", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}))
	c := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(ts.URL), option.WithHTTPClient(ts.Client),
		option.WithAPIKey("x"), option.WithMaxRetries(0)))
	const n = 50
	dials := 0
	for range n {
		s := c.NewStreaming(context.Background(), chat("m", 3))
		drain(t, s, 0)
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		if !s.Timing().Conn.Reused {
			dials++
		}
	}
	if dials > 3 {
		t.Errorf("%d of %d requests dialed a new connection, want at most 3", dials, n)
	}
}
