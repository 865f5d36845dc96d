package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
)

// TestLocalAIChoicesGlued: LocalAI streams the choices of a request with
// n = 2 one after the other, all as choice 0 (recorded live, 2026: 12
// tokens of two answers of 6, one finish reason). The caller got one
// choice whose text ran both answers together. It now gets a KindRequest
// refusal before any text, and a Router falls back to its next route,
// whose breaker does not count the refusal.
func TestLocalAIChoicesGlued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		glued := loadRecording(t, "localai-2026-chat-n2-stream.jsonl")
		url, hc := serve(t, byModel(map[string]http.Handler{
			"tiny":   replay(glued),
			"second": sseBody(chunk("s", "a", "stop", "") + `data: {"id":"s","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":1,"delta":{"content":"b"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"),
		}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		req := chat("tiny", 6)
		req.N = openai.Int(2)
		s := c.NewStreaming(context.Background(), req)
		got := readChat(s)
		var se *tokenpace.StreamError
		if !errors.As(got.err, &se) || se.Kind != tokenpace.KindRequest || se.Detail != "choices_glued" || !strings.Contains(got.err.Error(), "LocalAI") || got.text != "" {
			t.Errorf("Client: text %q, err %v; want no text and a KindRequest refusal naming LocalAI", got.text, got.err)
		}

		r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, route("tiny"), route("second"))
		if err != nil {
			t.Fatal(err)
		}
		for range 6 {
			s = r.NewStreaming(context.Background(), req)
			n := 0
			for s.Next() {
				n += len(s.Current().Choices)
			}
			if s.Err() != nil || n != 2 {
				t.Fatalf("Router: %d choice deltas, err %v; want the second route's two choices", n, s.Err())
			}
		}
		if st, ok := r.BreakerState("tiny"); !ok || st != gobreaker.StateClosed {
			t.Errorf("breaker of the LocalAI route: %v; want closed: the refusal says nothing of its health", st)
		}
	})
}
