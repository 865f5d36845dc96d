package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestLMStudioLoadFailureSentAgain: LM Studio, loading a model at the
// request, answers a load that failed ("Failed to load model \"…\".
// Error: Operation canceled.", charmbracelet/crush#2546) with 400 and the
// error object of a request it refuses. The caller got it as its own
// mistake: sent once, not counted, and a Router handed it back instead
// of trying its next route. It is now the 503 it is: sent again, and a
// Router whose first route keeps failing to load gets its answer from
// the next. Its 400 for a model not loaded with just-in-time loading off,
// and for a model its guardrail will not load on that machine, stays a
// 400, sent once: another try fails alike.
func TestLMStudioLoadFailureSentAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		unloaded := func(w http.ResponseWriter, r *http.Request) bool {
			var msg string
			switch {
			case strings.HasPrefix(r.URL.Path, "/unloaded/"):
				msg = `No models loaded. Please load a model in the developer page or use the 'lms load' command.`
			case strings.HasPrefix(r.URL.Path, "/toobig/"):
				msg = `Failed to load model \"qwen/qwen3-coder-30b\". Error: Model loading was stopped due to insufficient system resources. Under the current settings, this model requires approximately 31.5 GB of memory, and continuing to load it would likely overload your system and cause it to freeze. If you think this is incorrect, you can adjust the model loading guardrails in settings.`
			default:
				return false
			}
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"message":"` + msg + `","type":"invalid_request_error","param":"model","code":null}}`))
			return true
		}
		const model = "qwen/qwen3-coder-30b"
		oc, counts := wantOverloadSentAgain(t, "lmstudio-jit-load-failed-400", model, unloaded)

		for _, prefix := range []string{"/unloaded", "/toobig"} {
			s := tokenpace.NewClient(*oc("http://replay.invalid" + prefix + "/v1/")).NewStreaming(context.Background(), chat(model, 64))
			readAll(t, s)
			var ae *openai.Error
			if n := counts.of(prefix + "/v1/chat/completions"); !errors.As(s.Err(), &ae) || ae.StatusCode != http.StatusBadRequest || n != 1 {
				t.Errorf("%s: Err() = %v, %d requests; want a 400, sent once", prefix, s.Err(), n)
			}
		}
	})
}

// TestLMStudioLoadFailureCounted: the route that failed to load the model
// answers for it: a breaker that opens at one failure is open for the
// next call, and the caller had the 503 with LM Studio's words.
func TestLMStudioLoadFailureCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantFailureCounted(t, "lmstudio-jit-load-failed-400", http.StatusServiceUnavailable, chatErr(t))
	})
}
