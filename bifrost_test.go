package tokenpace_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// bifrostClosed is Bifrost's answer (v1.4.19, recorded live) to a call
// that does not stream when its provider closed the connection before
// answering: 400 with is_bifrost_error false.
const bifrostClosed = `{"is_bifrost_error":false,"error":{"error":"the server closed connection before returning the first response byte. Make sure the server returns 'Connection: close' response header before closing the connection","message":"failed to execute HTTP request to provider API"},"extra_fields":{"provider":"openai","model_requested":"tiny","request_type":"chat_completion"}}`

// TestBifrostUpstreamFailure: Bifrost answers a call it could not send to
// its provider with 400, a request error's status, so that openai-go did
// not send it again and a Router counted nothing against the route: the
// caller got a request error for a gateway whose upstream had dropped a
// connection. It is now the 502 it is: sent again, and answered.
func TestBifrostUpstreamFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int64
		url, hc, _ := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Server", "fasthttp")
			if n.Add(1) == 1 {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(bifrostClosed))
				return
			}
			_, _ = w.Write([]byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"tiny","choices":[{"index":0,"message":{"role":"assistant","content":"Hello."},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`))
		})
		oc := openai.NewClient(option.WithBaseURL(url), option.WithHTTPClient(hc), option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(1))
		var tm *tokenpace.Timing
		res, err := tokenpace.NewClient(oc).New(context.Background(), chat("tiny", 8), tokenpace.WithTimingInto(&tm))
		if err != nil || res.Choices[0].Message.Content != "Hello." {
			t.Fatalf("New() = %v, %v; want the answer of the request sent again", res, err)
		}
		if len(tm.HTTP) != 2 || tm.HTTP[0].Status != http.StatusBadRequest {
			t.Errorf("HTTP attempts %d, the first's status %d; want 2, the first as the gateway sent it (400)", len(tm.HTTP), tm.HTTP[0].Status)
		}
	})
}
