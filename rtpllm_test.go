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

// TestRTPLLMCodesAreNotStatuses: RTP-LLM's error codes are its own
// numbers, and some read like statuses: 499 CANCELLED_ERROR is its
// backend's RPC cancelled on the server's side (alibaba/rtp-llm
// rtp_llm/cpp/model_rpc/model_rpc_client.py; a caller's own disconnect
// writes nothing), 429 TRAFFIC_LIMIT_ERROR its router's queue over its
// threshold (rtp_llm/server/backend_rpc_server_visitor.py, route_ips).
// Sent inside its 200 stream, the 499 was read as the status it looks
// like: a caller's error, which a breaker never counted however often
// the server cancelled. It is now the server's failure, with its
// message, and counted. Its limit still reads as 429.
func TestRTPLLMCodesAreNotStatuses(t *testing.T) {
	t.Run("backend cancelled", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			wantFailureCounted(t, "rtpllm-backend-cancelled-499-event", http.StatusOK, chatErr(t))
		})
	})
	t.Run("traffic limit", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
				_, _ = w.Write([]byte("data: {\"error_code\": 429, \"error_code_str\": \"429_TRAFFIC_LIMIT_ERROR\", \"message\": \"Flexlb queue length 130 exceeds threshold 128\"}\r\n\r\n"))
			}))
			s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("qwen3-8b", 64))
			readAll(t, s)
			var ae *openai.Error
			if !errors.As(s.Err(), &ae) || ae.StatusCode != http.StatusTooManyRequests || ae.Message != "Flexlb queue length 130 exceeds threshold 128" {
				t.Errorf("Err() = %v; want status 429 with the server's message", s.Err())
			}
		})
	})
}
