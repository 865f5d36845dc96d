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
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
)

// TestLMDeployResponsesInvalidPrompt replays LMDeploy's /v1/responses
// ending a stream it has begun in response.failed: a request its engine
// refuses (a prompt over the context, code "invalid_prompt", which
// OpenAI's Responses API also gives a prompt it refuses) and an answer the
// server aborted (code "server_error", status "cancelled"). The caller
// gets the message; the refusal comes with status 400, and a Router goes
// on to its next route (continues the abort there) with its breaker, the server being well, closed.
// Before, the refusal's status was 200 and the breaker opened after 5
// such calls. The abort is the server's and is still counted.
func TestLMDeployResponsesInvalidPrompt(t *testing.T) {
	all := loadConformance(t)
	for _, tt := range []struct {
		fixture string
		status  int
		closed  bool
	}{
		{"lmdeploy-responses-invalid-prompt-failed", http.StatusBadRequest, true},
		{"lmdeploy-responses-abort-cancelled-failed", http.StatusOK, false},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fx := all[tt.fixture]
				model := fx.Request.Body.Model
				var sent atomic.Int32
				counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					sent.Add(1)
					replay(fx.recording)(w, r)
				})
				url, hc := serve(t, byModel(map[string]http.Handler{model: counted, "second": secondRoute}))
				c := tokenpace.NewClient(openaiClient(url, hc))

				got := readResponseStream(c.NewResponseStreaming(context.Background(), respond(model, 64)))
				var ae *openai.Error
				var se *tokenpace.StreamError
				if !errors.As(got.err, &se) || se.Kind != tokenpace.KindErrorEvent || !errors.As(got.err, &ae) ||
					ae.StatusCode != tt.status || ae.Message != fx.Expect.ErrorMessage || got.text != fx.Expect.Text {
					t.Errorf("Client: text %q, err %v; want %q and an error event with the server's message and status %d",
						got.text, got.err, fx.Expect.Text, tt.status)
				}
				if n := sent.Load(); n != 1 {
					t.Errorf("Client: sent %d times, want 1", n)
				}

				rt, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true},
					tokenpace.Route{Name: "first", Model: model}, route("second"))
				if err != nil {
					t.Fatal(err)
				}
				for i := range 12 { // more than the 5 failures that open a breaker
					got := readResponseStream(rt.NewResponseStreaming(context.Background(), respond(model, 64)))
					if got.err != nil || !strings.HasSuffix(got.text, extra) {
						t.Fatalf("Router call %d: text %q, err %v; want the next route's answer", i, got.text, got.err)
					}
				}
				if st, ok := rt.BreakerState("first"); !ok || (st == gobreaker.StateClosed) != tt.closed {
					t.Errorf("breaker %v after 12 calls, want closed: %v", st, tt.closed)
				}
			})
		})
	}
}
