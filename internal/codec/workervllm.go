package codec

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// RunPod's worker-vllm relaying vLLM's refusal.
//
// Since it proxies each job to a local `vllm serve` (runpod-workers/worker-vllm
// src/handler.py, July 2026 on), worker-vllm reads an answer of vLLM's of
// status 400 or over as text and yields, whether or not the request
// streams, an error object of its own:
// {"error": {"message": "vLLM returned HTTP <status>: <vLLM's body>",
// "type": "worker_error", "code": null}} (handler and _error). RunPod's
// OpenAI route answers what a job yields with 200, as it answered
// worker-vllm#57's error, so vLLM's status is left only in the words, and
// its own message inside its body, written as text into the message.

// workerVLLMPrefix opens the message of worker-vllm's error of an answer
// vLLM refused.
const workerVLLMPrefix = "vLLM returned HTTP "

// WorkerVLLMRelayed returns the status, 400 to 599, and the body that raw,
// an error object, holds as worker-vllm relays vLLM's refusal: type
// "worker_error", and a message of workerVLLMPrefix, the status, ": " and
// the body. ok is false for any other error, worker-vllm's own failures
// among them ("Request to vLLM failed: …", "vLLM server process is not
// running; worker is unhealthy").
func WorkerVLLMRelayed(raw string) (status int, body string, ok bool) {
	if raw == "" || gjson.Get(raw, "type").Str != "worker_error" {
		return 0, "", false
	}
	rest, found := strings.CutPrefix(gjson.Get(raw, "message").Str, workerVLLMPrefix)
	if !found {
		return 0, "", false
	}
	code, body, found := strings.Cut(rest, ": ")
	n, err := strconv.Atoi(code)
	if !found || err != nil || n < 400 || n > 599 {
		return 0, "", false
	}
	return n, body, true
}

// workerVLLMMessage returns vLLM's own message inside raw, worker-vllm's
// relay of vLLM's refusal (see WorkerVLLMRelayed): its error object's
// message, nested under "error" or at the top level as vLLM wrote it
// before it nested them; "" for any other error, or a body without one.
func workerVLLMMessage(raw string) string {
	_, body, ok := WorkerVLLMRelayed(raw)
	if !ok || !gjson.Valid(body) {
		return ""
	}
	for _, k := range [...]string{"error.message", "message"} {
		if m := gjson.Get(body, k); m.Type == gjson.String && m.Str != "" {
			return m.Str
		}
	}
	return ""
}
