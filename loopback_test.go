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

// TestLoopbackConnection checks, over real TCP, the connection breakdown:
// the first request dials, the second reuses the connection.
func TestLoopbackConnection(t *testing.T) {
	ts := simulate.StartLoopback(t, simulate.WithModel("m", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}))
	c := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(ts.URL), option.WithHTTPClient(ts.Client),
		option.WithAPIKey("x"), option.WithMaxRetries(0)))
	for i, wantReused := range []bool{false, true} {
		s := c.NewStreaming(context.Background(), chat("m", 3))
		drain(t, s, 0)
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("request %d: Err() = %v", i, err)
		}
		tm := s.Timing()
		if tm.Conn.Reused != wantReused {
			t.Errorf("request %d: Conn.Reused = %v, want %v", i, tm.Conn.Reused, wantReused)
		}
		if dialed := tm.Conn.Connect > 0; dialed == wantReused {
			t.Errorf("request %d: Conn.Connect = %v, want a dial only on a new connection", i, tm.Conn.Connect)
		}
		if tm.WroteRequest.IsZero() || tm.WroteRequest.Before(tm.Sent) || tm.Headers.Before(tm.WroteRequest) {
			t.Errorf("request %d: Sent %v, WroteRequest %v, Headers %v: want them in order", i, tm.Sent, tm.WroteRequest, tm.Headers)
		}
		if len(tm.Chunks) != 3 || tm.OutputTokens != 3 {
			t.Errorf("request %d: %d chunks, %d tokens, want 3, 3", i, len(tm.Chunks), tm.OutputTokens)
		}
	}
}
