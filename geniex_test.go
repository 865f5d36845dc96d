package tokenpace_test

import (
	"errors"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestGenieXPromptTooLongNotCounted: GenieX's local server (Qualcomm)
// begins its streamed /v1/completions before the model has read the
// prompt, so a prompt over the model's context, which its whole answer
// refuses 400 context_length_exceeded, comes inside the 200 stream as
// {"code":-200103,"error":"SDKError(Input prompt too long)"}: the error a
// bare string, the SDK's code for a prompt too long beside it
// (qualcomm/GenieX cli/server/handler/completion.go, streamCompletion and
// writeCompletionPromptTooLong; sdk/include/geniex.h,
// GENIEX_ERROR_LLM_GENERATION_PROMPT_TOO_LONG). An editor's
// fill-in-the-middle prompt of a long file meets it first. The caller
// must get status 400 with the server's message, and a breaker must not
// count the prompt's fault.
func TestGenieXPromptTooLongNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "geniex-completions-prompt-too-long-in-stream", http.StatusBadRequest, completionErr(t))
	})
}

// TestGenieXGenerationFailureCounted: GenieX sends a generation that
// failed mid-answer in the shape of its prompt-too-long refusal,
// {"code":-200101,"error":"SDKError(Text generation failed)"}, then ends
// the body (qualcomm/GenieX cli/server/handler/completion.go,
// streamCompletion; sdk/include/geniex.h,
// GENIEX_ERROR_LLM_GENERATION_FAILED). That is the server's failure: the
// caller keeps the text so far, the error keeps status 200, and a breaker
// of one failure opens.
func TestGenieXGenerationFailureCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fx conformance
		fx.Reads = readFixture(t, "testdata/conformance/geniex-completions-generation-failed-after-output.jsonl", &fx)
		url, hc := serve(t, byModel(map[string]http.Handler{fx.Request.Body.Model: replay(fx.recording)}))
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)),
			tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}},
			tokenpace.Route{Name: "first", Model: fx.Request.Body.Model})
		if err != nil {
			t.Fatal(err)
		}
		err = completionErr(t)(r, fx.Request.Body.Model)
		var ae *openai.Error
		if !errors.As(err, &ae) || ae.StatusCode != http.StatusOK || ae.Message != fx.Expect.ErrorMessage {
			t.Errorf("call 1: Err() = %v; want status 200 with the server's message %q", err, fx.Expect.ErrorMessage)
		}
		if err := completionErr(t)(r, fx.Request.Body.Model); !errors.Is(err, tokenpace.ErrCircuitOpen) {
			t.Errorf("call 2: Err() = %v; want the breaker open after the server's failure", err)
		}
	})
}
