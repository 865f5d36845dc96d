package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
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
		wantFailureCounted(t, "geniex-completions-generation-failed-after-output", http.StatusOK, completionErr(t))
	})
}
