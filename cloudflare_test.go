package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// cloudflareNoResponse is Cloudflare AI Gateway's answer, under status
// 400, to a request whose provider gave it no response: its own error
// envelope, the error an array, code 2005 (cloudflare/ai#436, #611),
// where it passes a provider's own error through as the provider sent it.
const cloudflareNoResponse = `{"success":false,"result":[],"messages":[],"error":[{"code":2005,"message":"Failed to get response from provider"}]}`

// TestCloudflareUpstreamFailure: Cloudflare AI Gateway answers a request
// its provider did not answer with 400, a request error's status, so that
// openai-go did not send it again and a Router counted nothing against
// the route; the caller got a request error for a provider that had
// failed once, and its message as a body "not valid JSON". It is now the
// 502 it is, sent again and answered; when no try is left, the caller
// gets the gateway's message.
func TestCloudflareUpstreamFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int64
		url, hc, _ := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			if n.Add(1) == 1 {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("cf-aig-cache-status", "MISS")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(cloudflareNoResponse))
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"tiny","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello."},"finish_reason":null}]}` + "\n\n" +
				`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"tiny","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"))
		})
		oc := openai.NewClient(option.WithBaseURL(url), option.WithHTTPClient(hc), option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(1))
		s := tokenpace.NewClient(oc).NewStreaming(context.Background(), chat("tiny", 8))
		var text string
		for s.Next() {
			for _, ch := range s.Current().Choices {
				text += ch.Delta.Content
			}
		}
		s.Close()
		if err := s.Err(); err != nil || text != "Hello." {
			t.Fatalf("stream = %q, %v; want the answer of the request sent again", text, err)
		}
		if tm := s.Timing(); len(tm.HTTP) != 2 || tm.HTTP[0].Status != http.StatusBadRequest {
			t.Errorf("HTTP attempts %d, the first's status %d; want 2, the first as the gateway sent it (400)", len(tm.HTTP), tm.HTTP[0].Status)
		}

		oc = openai.NewClient(option.WithBaseURL(url), option.WithHTTPClient(hc), option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(0))
		n.Store(0)
		s = tokenpace.NewClient(oc).NewStreaming(context.Background(), chat("tiny", 8))
		for s.Next() {
		}
		s.Close()
		var ae *openai.Error
		if err := s.Err(); !errors.As(err, &ae) || ae.StatusCode != http.StatusBadGateway || ae.Message != "Failed to get response from provider" {
			t.Errorf("Err() = %v; want a 502 *openai.Error with the gateway's message", err)
		}
	})
}

// TestCloudflareOriginTimeoutCounted: Cloudflare's 524, its HTML error
// page for an origin silent past the proxy's read timeout, is the
// route's failure: sent again (three requests a call) and counted by a
// breaker, the page's title its message.
func TestCloudflareOriginTimeoutCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx := fixture(t, "cloudflare-524-origin-timeout-html")
		wantSentAndCounted(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { replay(fx.recording)(w, r) },
			"http://replay.invalid/v1/", "/v1/chat/completions", fx.Request.Body.Model, 524, "llm.example.com | 524: A timeout occurred", 3, true)
	})
}
