package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestOpenRouterProviderRefusalNotCounted: OpenRouter passes on its
// provider's refusal of the request (OpenAI's 400 for a tool message
// without tool_call_id) inside its 200 event stream, as its error object
// of code 400. The caller got status 200 and a breaker of one failure
// opened on a route that was well; it now gets status 400, the status
// OpenRouter gives the same error before a stream, and the breaker stays
// closed, on the chat and the completions API alike.
func TestOpenRouterProviderRefusalNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "openrouter-provider-refusal-error-event-400", http.StatusBadRequest, chatErr(t))
		wantRefusalsNotCounted(t, "openrouter-provider-refusal-error-event-400", http.StatusBadRequest, completionErr(t))
	})
}

// TestOpenRouterProviderRefusalWholeNotCounted: a call that is not
// streamed gets the same error object as its 200 answer's body once
// OpenRouter's model is processing ("emitted in the response body or as
// an SSE data event", openrouter.ai/docs/api/reference/errors-and-debugging);
// it reads as the stream's does: the server's error of status 400, not
// counted by a breaker of one failure.
func TestOpenRouterProviderRefusalWholeNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx := fixture(t, "openrouter-provider-refusal-error-event-400")
		event := fx.Reads[len(fx.Reads)-1].Data
		body := strings.TrimSuffix(strings.TrimPrefix(event, "data: "), "\n\n")
		rec := recording{Status: http.StatusOK, Headers: map[string]string{"Content-Type": "application/json"},
			Reads: []recordedRead{{Data: body}}}
		url, hc := serve(t, replay(rec))
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)),
			tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}},
			tokenpace.Route{Name: "first", Model: fx.Request.Body.Model})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			_, err := r.New(context.Background(), chat(fx.Request.Body.Model, 64))
			if errors.Is(err, tokenpace.ErrCircuitOpen) {
				t.Fatalf("call %d: %v; the refusal opened the breaker", i+1, err)
			}
			var se *tokenpace.StreamError
			var ae *openai.Error
			if !errors.As(err, &se) || se.Kind != tokenpace.KindErrorEvent || !errors.As(err, &ae) ||
				ae.StatusCode != http.StatusBadRequest || ae.Message != fx.Expect.ErrorMessage {
				t.Errorf("call %d: err = %v; want the server's error of status 400 with its message %q", i+1, err, fx.Expect.ErrorMessage)
			}
		}
	})
}
