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

// TestGeminiCLIRefusalNotCounted: gemini-cli-openai writes Code Assist's
// 403 as the answer's text, "Error: Stream request failed: 403"
// (GewoonJaap/gemini-cli-openai#176). The caller must get status 403
// with that message, and a breaker must not count it.
func TestGeminiCLIRefusalNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "gemini-cli-openai-403-error-as-content-stop", http.StatusForbidden, chatErr(t))
	})
}

// TestGeminiCLIQuotaCounted: the same bridge's 429, Code Assist's quota
// spent after four retries, is the route's: the caller gets status 429,
// and a breaker of one failure opens on it.
func TestGeminiCLIQuotaCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fx conformance
		fx.Reads = readFixture(t, "testdata/conformance/gemini-cli-openai-429-after-retries-as-content.jsonl", &fx)
		url, hc := serve(t, byModel(map[string]http.Handler{fx.Request.Body.Model: replay(fx.recording)}))
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)),
			tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}},
			tokenpace.Route{Name: "first", Model: fx.Request.Body.Model})
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewStreaming(context.Background(), chat(fx.Request.Body.Model, 64))
		readAll(t, s)
		var ae *openai.Error
		if err := s.Err(); !errors.As(err, &ae) || ae.StatusCode != http.StatusTooManyRequests || ae.Message != fx.Expect.ErrorMessage {
			t.Fatalf("Err() = %v; want status 429 with %q", err, fx.Expect.ErrorMessage)
		}
		s = r.NewStreaming(context.Background(), chat(fx.Request.Body.Model, 64))
		readAll(t, s)
		if err := s.Err(); !errors.Is(err, tokenpace.ErrCircuitOpen) {
			t.Errorf("second call: Err() = %v, want ErrCircuitOpen after the route's 429", err)
		}
	})
}
