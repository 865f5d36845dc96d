package tokenpace_test

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/internal/servertest"
)

// A request that failed on a reused connection before any response byte
// was never processed: it is sent again, so that no request fails against
// a server that closes after every stream, and Timing.HTTP shows both
// tries. The client then pools none of that server's connections.
func TestServerClosesAfterEachStream(t *testing.T) {
	base := "http://" + servertest.Closing(t, func(*http.Request) (string, string) {
		return "text/event-stream", chunk("c", "Hello", "", "") + chunk("c", " world.", "stop", `{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}`) + "data: [DONE]\n\n"
	}) + "/v1/"
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	oc := openai.NewClient(option.WithBaseURL(base), option.WithAPIKey("k"), option.WithMaxRetries(0), option.WithHTTPClient(hc))
	c := tokenpace.NewClient(oc)
	r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, route("m"))
	if err != nil {
		t.Fatal(err)
	}
	resent := 0
	for i := range 20 {
		var s *tokenpace.Stream[openai.ChatCompletionChunk]
		if i%2 == 0 {
			s = c.NewStreaming(context.Background(), chat("m", 10))
		} else {
			s = r.NewStreaming(context.Background(), chat("m", 10))
		}
		if got := readAll(t, s); got != "Hello world." || s.Err() != nil {
			t.Fatalf("request %d: read %q, Err() = %v; want %q, nil", i, got, s.Err(), "Hello world.")
		}
		tm := s.Timing()
		if n := len(tm.HTTP); n > 1 {
			resent++
			if h := tm.HTTP[0]; !h.Conn.Reused || h.Err == nil || h.Status != 0 {
				t.Errorf("request %d: first HTTP try %+v, want a reused connection that failed without a response", i, h)
			}
			if h := tm.HTTP[n-1]; h.Status != http.StatusOK {
				t.Errorf("request %d: last HTTP try status %d, want 200", i, h.Status)
			}
		}
		if tm.TTFT() <= 0 || tm.Sent.After(tm.HTTP[0].Start) {
			t.Errorf("request %d: TTFT %v from %v; want it counted from the first try, %v", i, tm.TTFT(), tm.Sent, tm.HTTP[0].Start)
		}
	}
	if resent != 1 {
		t.Errorf("%d requests sent again, want 1: the first that met a closed connection, after which the client pools none of the server's", resent)
	}
}

// A request that failed on a reused connection long after it was written
// was not refused by a dead connection: something on the way cut it while
// the server worked on it, as a load balancer does at its idle timeout
// (Azure's Standard Load Balancer, four minutes by default, sends a reset
// to both ends with "TCP Reset on Idle"), or a server that crashed
// mid-answer. It is not sent again at once: it ran minutes, and the
// server may have done the work; the client sent it eight more times
// over the connections it had pooled, each waiting out the same timeout,
// and a call that failed after four minutes failed after eight or more.
// A connection that fails as soon as the request is written is still a
// dead one, and its request is sent again.
func TestLateCloseNotSentAgain(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after time.Duration // how long the request ran before its connection closed
		tries int           // the HTTP tries of the call
	}{
		{"idle timeout", 4 * time.Minute, 1},
		{"dead connection", 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				requests := 0
				url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					requests++
					n := requests
					mu.Unlock()
					if n == 1 || n > 2 {
						w.Header().Set("Content-Type", "text/event-stream")
						_, _ = io.WriteString(w, chunk("c", answer, "stop", "")+"data: [DONE]\n\n")
						return
					}
					time.Sleep(tc.after)
					conn, _, err := http.NewResponseController(w).Hijack()
					if err == nil {
						_ = conn.Close()
					}
				}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				s := c.NewStreaming(context.Background(), chat("m", 10)) // leaves its connection pooled
				readAll(t, s)
				time.Sleep(2 * time.Second) // idle for longer than a server that closes after each response keeps it
				s = c.NewStreaming(context.Background(), chat("m", 10))
				got := readAll(t, s)
				tm := s.Timing()
				if len(tm.HTTP) != tc.tries {
					t.Errorf("%d HTTP tries %+v, want %d", len(tm.HTTP), tm.HTTP, tc.tries)
				}
				if tc.tries == 1 {
					checkKind(t, s.Err(), tokenpace.KindRequest)
					if d := tm.End.Sub(tm.Start); d != tc.after {
						t.Errorf("the call failed after %v, want %v", d, tc.after)
					}
				} else if got != answer || s.Err() != nil {
					t.Errorf("read %q, Err() = %v; want %q, nil", got, s.Err(), answer)
				}
			})
		})
	}
}

// A stream an HTTP/2 server reset before its response, on a connection it
// keeps serving, is the server's answer, not a dead connection's: RFC 9113
// (8.7) makes only REFUSED_STREAM, and streams past a GOAWAY's last one,
// safe to send again, which Go's transport does itself; any other reset
// (INTERNAL_ERROR from a gateway, a server shedding load) may come after
// the request was processed. The client sent it again at once, up to
// eight times, whatever the caller's retries; the call now fails with
// the reset, for openai-go's retries or a Router's policy to answer. Nor
// is the server learnt as one that closes its connections after each
// response, whose requests then each dialled a connection of their own.
func TestHTTP2ResetNotSentAgain(t *testing.T) {
	var mu sync.Mutex
	requests := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		n := requests
		mu.Unlock()
		if n == 2 {
			panic(http.ErrAbortHandler) // RST_STREAM, INTERNAL_ERROR, before any response
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, chunk("c", answer, "stop", "")+"data: [DONE]\n\n")
	}))
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	hc := srv.Client()
	defer hc.CloseIdleConnections()
	c := tokenpace.NewClient(openaiClient(srv.URL+"/v1/", hc))
	s := c.NewStreaming(context.Background(), chat("m", 10))
	if got := readAll(t, s); got != answer || s.Err() != nil {
		t.Fatalf("read %q, Err() = %v; want %q, nil", got, s.Err(), answer)
	}
	s = c.NewStreaming(context.Background(), chat("m", 10))
	readAll(t, s)
	checkKind(t, s.Err(), tokenpace.KindRequest)
	if tm := s.Timing(); len(tm.HTTP) != 1 || !tm.HTTP[0].Conn.Reused {
		t.Errorf("HTTP tries %+v, want one, on the reused connection", tm.HTTP)
	}
	s = c.NewStreaming(context.Background(), chat("m", 10))
	if got := readAll(t, s); got != answer || s.Err() != nil || !s.Timing().Conn.Reused {
		t.Errorf("after the reset: read %q, Err() = %v, Conn %+v; want %q, nil, the connection reused", got, s.Err(), s.Timing().Conn, answer)
	}
	mu.Lock()
	defer mu.Unlock()
	if requests != 3 {
		t.Errorf("the server got %d requests, want 3", requests)
	}
}
