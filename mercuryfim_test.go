package tokenpace_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestCompletionOnAnotherPath: Inception's Mercury serves fill-in-the-middle
// at /v1/fim/completions in the legacy completions stream (choices[].text;
// iowarp/clio-coder src/domains/providers/runtimes/cloud/inception.ts,
// infill). NewCompletionStreaming reaches it with a request's own base
// URL, to which openai-go appends "completions": the request goes to that
// path with the prompt and suffix, and the caller gets the text, the
// finish reason and its Timing.
func TestCompletionOnAnotherPath(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var path, suffix string
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			path = r.URL.Path
			var body struct{ Suffix string }
			_ = json.NewDecoder(r.Body).Decode(&body)
			suffix = body.Suffix
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(`data: {"id":"c","object":"text_completion","model":"mercury-edit-2","choices":[{"index":0,"text":"a + b","finish_reason":null}]}` + "\n\n" +
				`data: {"id":"c","object":"text_completion","model":"mercury-edit-2","choices":[{"index":0,"text":"","finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"))
		}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		s := c.NewCompletionStreaming(context.Background(), openai.CompletionNewParams{Model: "mercury-edit-2",
			Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("def add(a, b):\n    return ")}, Suffix: openai.String("\n")},
			option.WithBaseURL(url+"fim/"))
		for s.Next() {
		}
		_ = s.Close()
		if path != "/v1/fim/completions" || suffix != "\n" {
			t.Errorf("request to %q with suffix %q, want /v1/fim/completions with %q", path, suffix, "\n")
		}
		if s.Err() != nil || s.Text() != "a + b" || s.Timing().FinishReason != "stop" {
			t.Errorf("Err() = %v, Text() = %q, finish %q; want nil, %q, \"stop\"", s.Err(), s.Text(), s.Timing().FinishReason, "a + b")
		}
	})
}
