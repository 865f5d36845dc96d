package tokenpace_test

import (
	"context"
	"net/http"
	"testing"

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
