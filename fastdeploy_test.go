package tokenpace_test

import (
	"testing"
	"testing/synctest"
)

// TestFastDeployRequestErrorUnder500 replays FastDeploy refusing a
// request with 500, as it answers every error before a stream: a prompt
// over the model's length (its message prefixed with the request's id and
// followed by the traceback), and a field the server was not started for
// (its param named). The caller gets the server's message as a KindRequest
// 400 after one request, not three, and a Router's breaker stays closed;
// FastDeploy's own failure under the same type and shape (its task queue's
// send failing) is still sent again and counted.
func TestFastDeployRequestErrorUnder500(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		long := loadRecording(t, "conformance/fastdeploy-chat-prompt-too-long-traceback-500.jsonl")
		failed := long
		failed.Reads = []recordedRead{{TMS: 30, Data: `{"error":{"message":"request[chatcmpl-3f9a7c1e-2b4d-4e8a-9c5f-1a2b3c4d5e6f] generator error: Resource temporarily unavailable, Traceback (most recent call last):\n","type":"invalid_request_error","param":null,"code":null}}`}}
		wantRequestErrorsUnder500(t, "v1/", []refusedUnder500{
			{"long", long, "Input text is too long, input_ids_len (8190)"},
			{"param", loadRecording(t, "conformance/fastdeploy-chat-parameter-error-500.jsonl"), "Logprobs is disabled"},
		}, failed)
	})
}
