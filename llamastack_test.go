package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestLlamaStackRefusalInStream replays Llama Stack refusing a request
// inside its stream: it calls its provider only once the 200 event stream
// has begun, so vLLM's 400 for a prompt over the context arrives as one
// error event whose message is Starlette's HTTPException as a string,
// "400: …" (llama_stack/core/server/server.py, sse_generator). The
// caller gets the message, with the status it names; a Router goes on
// to its next route and its breaker, the server being well, stays
// closed. The server's own failure in the same shape ("500: …") is still
// counted.
func TestLlamaStackRefusalInStream(t *testing.T) {
	wantRelayedRefusal(t, "llamastack-chat-refused-in-stream", "llamastack-chat-error-midstream", http.StatusBadRequest)
}

// TestLlamaStackResponsesRefusal replays Llama Stack's /v1/responses
// since ogx-ai/ogx#5224: a refusal once the 200 stream has begun is the
// Responses API's error event, its status only as its code, "400"
// (src/ogx_api/responses/fastapi_routes.py, sse_generator). The caller
// gets the message with that status; a Router goes on to its next route
// and its breaker, the server being well, stays closed. The server's own
// failure, code "server_error", is still counted.
func TestLlamaStackResponsesRefusal(t *testing.T) {
	all := loadConformance(t)
	for _, tt := range []struct {
		fixture string
		status  int
		closed  bool
	}{
		{"llamastack-responses-error-event-refused", http.StatusBadRequest, true},
		{"llamastack-responses-error-event-midstream", http.StatusOK, false},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fx := all[tt.fixture]
				// The error event alone after the response's start, before
				// any text, so that a Router goes on to its next route.
				fx.Reads = append(fx.Reads[:2:2], fx.Reads[len(fx.Reads)-1])
				model := fx.Request.Body.Model
				url, hc := serve(t, byModel(map[string]http.Handler{model: replay(fx.recording), "second": secondRoute}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				ctx := context.Background()

				s := c.NewResponseStreaming(ctx, respond(model, 64))
				got := readResponseStream(s)
				var ae *openai.Error
				if !errors.As(got.err, &ae) || ae.StatusCode != tt.status || ae.Message != fx.Expect.ErrorMessage {
					t.Errorf("Client: err %v; want the server's message with status %d", got.err, tt.status)
				}

				wantResponsesBreaker(t, c, tokenpace.Policy{}, model, tt.closed)
			})
		})
	}
}
