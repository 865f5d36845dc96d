package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
)

// stalledPrinted answers with the start of a whole chat answer printed
// over many lines, as OpenAI prints one, labelled application/json, and
// then sends nothing more until the request ends.
func stalledPrinted(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte("{\n  \"id\": \"chatcmpl-1\",\n  \"object\": \"chat.completion\",\n"))
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// TestWholePrintedStalled: a body read to its end because its first line
// opens a JSON object (a whole answer printed over many lines) that then
// stalls ends as a stalled stream does: the caller's context error, or
// the budget's breach under a Router, never a hang or a wrong content
// type.
func TestWholePrintedStalled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, http.HandlerFunc(stalledPrinted))
		c := tokenpace.NewClient(openaiClient(url, hc))

		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		got := readChat(c.NewStreaming(ctx, chat("tiny", 8)))
		if !errors.Is(got.err, context.DeadlineExceeded) || got.text != "" {
			t.Errorf("Client: %q, %v; want no text and the caller's deadline", got.text, got.err)
		}

		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: time.Second}}, route("tiny"))
		if err != nil {
			t.Fatal(err)
		}
		got = readChat(r.NewStreaming(context.Background(), chat("tiny", 8)))
		if !errors.Is(got.err, tokenpace.ErrBudgetExceeded) || got.text != "" {
			t.Errorf("Router: %q, %v; want no text and the TTFT budget's breach", got.text, got.err)
		}
	})
}
