package codec

import "testing"

// TestWorkerVLLMRelayed: worker-vllm's relay of vLLM's refusal names
// vLLM's status and holds its body; its own failures, another type, or a
// status out of range, do not.
func TestWorkerVLLMRelayed(t *testing.T) {
	const vllm400 = `{"error":{"message":"'max_tokens' or 'max_completion_tokens' is too large: 64000.","type":"BadRequestError","param":null,"code":400}}`
	for _, tt := range []struct {
		raw     string
		status  int
		message string
	}{
		{`{"message": "vLLM returned HTTP 400: ` + jsonText(vllm400) + `", "type": "worker_error", "code": null}`, 400, "'max_tokens' or 'max_completion_tokens' is too large: 64000."},
		{`{"message": "vLLM returned HTTP 404: {\"object\":\"error\",\"message\":\"The model x does not exist.\",\"type\":\"NotFoundError\",\"param\":null,\"code\":404}", "type": "worker_error", "code": null}`, 404, "The model x does not exist."},
		{`{"message": "vLLM returned HTTP 500: Internal Server Error", "type": "worker_error", "code": null}`, 500, ""},
		{`{"message": "Request to vLLM failed: Server disconnected", "type": "worker_error", "code": null}`, 0, ""},
		{`{"message": "vLLM server process is not running; worker is unhealthy", "type": "worker_error", "code": null}`, 0, ""},
		{`{"message": "vLLM returned HTTP 400: {}", "type": "BadRequestError", "code": 400}`, 0, ""},
		{`{"message": "vLLM returned HTTP 200: {}", "type": "worker_error", "code": null}`, 0, ""},
	} {
		status, _, _ := WorkerVLLMRelayed(tt.raw)
		if status != tt.status || workerVLLMMessage(tt.raw) != tt.message {
			t.Errorf("WorkerVLLMRelayed(%s) = %d, message %q; want %d, %q", tt.raw, status, workerVLLMMessage(tt.raw), tt.status, tt.message)
		}
	}
}

// jsonText returns s written as the inside of a JSON string.
func jsonText(s string) string {
	out := make([]byte, 0, len(s))
	for i := range len(s) {
		if s[i] == '"' || s[i] == '\\' {
			out = append(out, '\\')
		}
		out = append(out, s[i])
	}
	return string(out)
}
