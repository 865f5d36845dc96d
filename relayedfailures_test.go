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

// TestRelayedServerFailuresCounted: the readers that take a relayed
// refusal for the request's (RunPod's worker-vllm relaying vLLM's 4xx,
// LM Studio passing on its engine's 4xx) leave the same relays of a
// server's failure to the route. worker-vllm's relay of vLLM's 503 and of
// its own failure to reach vLLM, and LM Studio's of its engine's 500 or
// 503, each answered under 200 in place of the answer: the caller gets
// the server's words, and a breaker of one failure opens.
func TestRelayedServerFailuresCounted(t *testing.T) {
	workerVLLM := func(msg string) string {
		return `{"error": {"message": "` + msg + `", "type": "worker_error", "code": null}}`
	}
	lmStudio := func(msg string) string {
		return "event: error\ndata: {\"error\":{\"message\":\"" + msg + "\"},\"message\":\"" + msg + "\"}\n\n"
	}
	for _, tt := range []struct {
		name, contentType, body string
		status                  int    // the error's, as the caller reads it
		message                 string // the error's
	}{
		{"worker-vllm vLLM 503", "application/json",
			workerVLLM(`vLLM returned HTTP 503: {\"error\":{\"message\":\"The engine is not ready\",\"type\":\"ServiceUnavailableError\",\"param\":null,\"code\":503}}`),
			http.StatusServiceUnavailable, "The engine is not ready"},
		{"worker-vllm vLLM 500 as text", "application/json",
			workerVLLM("vLLM returned HTTP 500: Internal Server Error"), http.StatusInternalServerError, "vLLM returned HTTP 500: Internal Server Error"},
		{"worker-vllm unreachable vLLM", "application/json",
			workerVLLM("Request to vLLM failed: Server disconnected"), http.StatusOK, "Request to vLLM failed: Server disconnected"},
		{"LM Studio engine 500", "text/event-stream",
			lmStudio(`Engine protocol predict request returned 500: {\"error\":{\"code\":500,\"message\":\"Failed to decode the batch\",\"type\":\"server_error\"}}`),
			http.StatusOK, `Engine protocol predict request returned 500: {"error":{"code":500,"message":"Failed to decode the batch","type":"server_error"}}`},
		{"LM Studio engine 503", "text/event-stream",
			lmStudio("Engine protocol predict request returned 503: Loading model"), http.StatusOK, "Engine protocol predict request returned 503: Loading model"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Content-Type", tt.contentType)
					_, _ = w.Write([]byte(tt.body))
				}))
				r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)),
					tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}}, route("m"))
				if err != nil {
					t.Fatal(err)
				}
				s := r.NewStreaming(context.Background(), chat("m", 64))
				readAll(t, s)
				var ae *openai.Error
				if !errors.As(s.Err(), &ae) || ae.StatusCode != tt.status || ae.Message != tt.message {
					t.Errorf("Err() = %v; want status %d with the message %q", s.Err(), tt.status, tt.message)
				}
				s = r.NewStreaming(context.Background(), chat("m", 64))
				readAll(t, s)
				if !errors.Is(s.Err(), tokenpace.ErrCircuitOpen) {
					t.Errorf("second call: Err() = %v, want the breaker open: the first failure was the route's", s.Err())
				}
			})
		})
	}
}
