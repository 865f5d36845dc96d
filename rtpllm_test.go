package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestRTPLLMRefusalNotCounted: RTP-LLM's frontend answers a streamed
// request with its 200 event stream before its engine looks at it, and
// sends a prompt over the model's length there as its own error shape,
// {"error_code": 511, "error_code_str": "511_LONG_PROMPT_ERROR",
// "message": …} (alibaba/rtp-llm rtp_llm/frontend/frontend_server.py,
// stream_response; rtp_llm/server/backend_rpc_server_visitor.py,
// _validate_input). The caller got an error with the message lost, as
// status 200, and a breaker of one failure opened on a server that was
// well. It now gets status 400 with the server's message, and the
// breaker stays closed.
func TestRTPLLMRefusalNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "rtpllm-long-prompt-error-code-event", http.StatusBadRequest, chatErr(t))
	})
}

// TestRTPLLMRequestErrorNotRetried: RTP-LLM's frontend answers a refusal
// raised before a stream begins (a tool_choice its renderer does not
// take, INVALID_PARAMS) with 500 and its own shape, {"error_code": 605,
// "error_code_str": "605_INVALID_PARAMS", "message": …}
// (rtp_llm/frontend/frontend_server.py, _handle_exception). openai-go sent
// it three times, each refused the same, and a breaker of one failure
// opened on a server that was well. The caller now gets status 400 with
// the server's message, one request per call, and the breaker stays
// closed.
func TestRTPLLMRequestErrorNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fx conformance
		fx.Reads = readFixture(t, "testdata/conformance/rtpllm-tool-choice-500-error-code.jsonl", &fx)
		wantSentAndCounted(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { replay(fx.recording)(w, r) },
			"http://replay.invalid/v1/", "/v1/chat/completions", fx.Request.Body.Model,
			http.StatusBadRequest, fx.Expect.ErrorMessage, 1, false)
	})
}
