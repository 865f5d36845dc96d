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
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestFastChatWorkerFailure: FastChat's openai_api_server answers every
// error of its own with status 400 (create_error_response), a worker's
// failure in a call that does not stream too: CUDA out of memory, code
// 50002, or a worker it could not reach, 50001. openai-go did not send it
// again and a Router's breaker counted nothing against the route: the
// caller got a request error for a server that was failing. Told by its
// code (a server error's status times 100, fastchat/constants.py
// ErrorCode), it is now the 500 it is: sent again, and answered. Its
// refusal of the request (a prompt over the context, 40303) stays a
// request error, sent once.
func TestFastChatWorkerFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		oom := loadRecording(t, "fastchat-2026-chat-worker-oom-400.jsonl")
		overflow := loadConformance(t)["fastchat-context-overflow-400"].recording
		var n atomic.Int64
		url, hc, counts := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			switch {
			case strings.HasPrefix(r.URL.Path, "/overflow/"):
				replay(overflow)(w, r)
			case n.Add(1) == 1:
				replay(oom)(w, r)
			default:
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"id":"chatcmpl-3Hq8ZtWkVb6nRcYp4JmDsE","object":"chat.completion","created":1788170400,"model":"vicuna-7b-v1.5","choices":[{"index":0,"message":{"role":"assistant","content":"Hello."},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"total_tokens":5,"completion_tokens":2}}`))
			}
		})
		client := func(base string) *tokenpace.Client {
			return tokenpace.NewClient(openai.NewClient(option.WithBaseURL(base), option.WithHTTPClient(hc),
				option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(1)))
		}
		ctx := context.Background()

		var tm *tokenpace.Timing
		res, err := client(url).New(ctx, chat("vicuna-7b-v1.5", 64), tokenpace.WithTimingInto(&tm))
		if err != nil || res.Choices[0].Message.Content != "Hello." {
			t.Fatalf("New() = %v, %v; want the answer of the request sent again", res, err)
		}
		if len(tm.HTTP) != 2 || tm.HTTP[0].Status != http.StatusBadRequest {
			t.Errorf("HTTP attempts %d, the first's status %d; want 2, the first as the server sent it (400)", len(tm.HTTP), tm.HTTP[0].Status)
		}

		_, err = client("http://replay.invalid/overflow/v1/").New(ctx, chat("vicuna-7b-v1.5", 64))
		var se *tokenpace.StreamError
		var ae *openai.Error
		if !errors.As(err, &se) || se.Kind != tokenpace.KindRequest || !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest ||
			!strings.Contains(ae.Message, "maximum context length is 4096 tokens") || counts.of("/overflow/v1/chat/completions") != 1 {
			t.Errorf("prompt over the context: err %v, %d requests; want FastChat's message as a KindRequest 400, sent once", err, counts.of("/overflow/v1/chat/completions"))
		}
	})
}
