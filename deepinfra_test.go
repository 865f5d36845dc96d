package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestDeepInfraInputTooLongNotRetried: DeepInfra answers a prompt longer
// than its model's input with 500 (langchain-ai/langchain#25671).
// openai-go sent it three times, each refused the same, and a breaker of
// one failure opened on a server that was well. The caller now gets the
// request error it is: status 400 with the server's message, one request
// per call, and the breaker stays closed.
func TestDeepInfraInputTooLongNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fx conformance
		fx.Reads = readFixture(t, "testdata/conformance/deepinfra-input-too-long-500.jsonl", &fx)
		_, hc, counts := serveCounting(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
			replay(fx.recording)(w, r)
		})
		c := tokenpace.NewClient(openai.NewClient(option.WithBaseURL("http://replay.invalid/v1/openai/"), option.WithHTTPClient(hc),
			option.WithAPIKey("sk-test-secret")))
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}},
			tokenpace.Route{Name: "deepinfra", Model: fx.Request.Body.Model})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			s := r.NewStreaming(context.Background(), chat(fx.Request.Body.Model, 64))
			readAll(t, s)
			if errors.Is(s.Err(), tokenpace.ErrCircuitOpen) {
				t.Fatalf("call %d: %v; the caller's prompt opened the breaker", i+1, s.Err())
			}
			var se *tokenpace.StreamError
			var ae *openai.Error
			if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindRequest || !errors.As(s.Err(), &ae) ||
				ae.StatusCode != http.StatusBadRequest || ae.Message != fx.Expect.ErrorMessage {
				t.Errorf("call %d: Err() = %v; want a KindRequest 400 with the server's message %q", i+1, s.Err(), fx.Expect.ErrorMessage)
			}
		}
		if n := counts.of("/v1/openai/chat/completions"); n != 2 {
			t.Errorf("%d requests for 2 calls, want 2: the refusal is not sent again", n)
		}
	})
}

// TestDeepInfraErrorFrameKept: DeepInfra refuses a streamed request inside
// its 200 event stream with one event of error_type and error_message,
// the message a JSON text of an error object. The caller got "stream
// truncated: no [DONE] event", the server's message lost, and a breaker
// counted the refusal against a server that was well. It now gets the
// server's message under status 400, and the breaker stays closed.
func TestDeepInfraErrorFrameKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "deepinfra-completions-error-type-frame", http.StatusBadRequest, func(r *tokenpace.Router, model string) error {
			s := r.NewCompletionStreaming(context.Background(), openai.CompletionNewParams{
				Model: openai.CompletionNewParamsModel(model), Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("def add")}})
			for s.Next() {
			}
			_ = s.Close()
			return s.Err()
		})
	})
}
