package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestNotImplemented: llama.cpp's server answers fill-in-the-middle for a
// model without its tokens with 501 (recorded live, 2026: "Infill is not
// supported by this model"). openai-go sent it twice more, each after its
// back-off, and a breaker counted each. The caller now gets the refusal
// at once, its message kept, and a Router's breaker that opens at one
// failure lets the next call through.
func TestNotImplemented(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dropped := loadRecording(t, "llamacpp-2026-completions-suffix-stream.jsonl")
		refused := loadRecording(t, "llamacpp-2026-infill-not-supported.jsonl")
		var infills atomic.Int32
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/infill") {
				infills.Add(1)
				replay(refused)(w, r)
				return
			}
			replay(dropped)(w, r)
		}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		p := openai.CompletionNewParams{Model: "tiny", MaxTokens: openai.Int(8),
			Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("def add(a, b):\n")}, Suffix: openai.String("\n    return c\n")}

		s := c.NewCompletionStreaming(context.Background(), p, option.WithMaxRetries(2))
		for s.Next() {
		}
		_ = s.Close()
		var se *tokenpace.StreamError
		var ae *openai.Error
		if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindRequest || !errors.As(s.Err(), &ae) || !strings.Contains(ae.Message, "Infill is not supported by this model") {
			t.Fatalf("err %v; want a KindRequest error with the server's message", s.Err())
		}
		if n := infills.Load(); n != 1 {
			t.Errorf("/infill asked %d times, want once", n)
		}

		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}}, tokenpace.Route{Name: "only", Model: "tiny"})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			s := r.NewCompletionStreaming(context.Background(), p)
			for s.Next() {
			}
			_ = s.Close()
			if errors.Is(s.Err(), tokenpace.ErrCircuitOpen) {
				t.Fatalf("call %d: %v; the refusals opened the breaker", i+1, s.Err())
			}
		}
	})
}
