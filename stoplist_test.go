package tokenpace_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestStopAsList: a stop sequence given as a string is sent as a list of
// one, which every server takes; some take nothing else: Bifrost answers a
// string with 400 "invalid request format: Mismatch type []string with
// value string" (seen live), TGI's chat completions with 422. Bare
// openai-go sends the string, and the call fails.
func TestStopAsList(t *testing.T) {
	url, hc, _ := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		var req struct {
			Stop   json.RawMessage `json:"stop"`
			Stream bool            `json:"stream"`
		}
		_ = json.Unmarshal(body, &req)
		var stop []string
		if err := json.Unmarshal(req.Stop, &stop); err != nil || len(stop) != 1 || stop[0] != "\n" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"is_bifrost_error":false,"status_code":400,"error":{"message":"invalid request format: Mismatch type []string with value string"}}`))
			return
		}
		if r.URL.Path == "/v1/completions" {
			if req.Stream {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte("data: {\"id\":\"c\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":\"one\",\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"id":"c","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"one","finish_reason":"stop"}],"usage":{"prompt_tokens":2,"completion_tokens":1,"total_tokens":3}}`))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"one\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
	})
	oc := openaiClient(url, hc)
	c := tokenpace.NewClient(oc)
	p := chat("m", 8)
	p.Stop = openai.ChatCompletionNewParamsStopUnion{OfString: openai.String("\n")}
	s := c.NewStreaming(context.Background(), p)
	if text := readAll(t, s); text != "one" || s.Err() != nil {
		t.Errorf("chat: text %q, Err() = %v; want %q, nil", text, s.Err(), "one")
	}
	cp := openai.CompletionNewParams{Model: "m", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("1, 2,")},
		Stop: openai.CompletionNewParamsStopUnion{OfString: openai.String("\n")}}
	cs := c.NewCompletionStreaming(context.Background(), cp)
	for cs.Next() {
	}
	if cs.Text() != "one" || cs.Err() != nil {
		t.Errorf("completion stream: text %q, Err() = %v; want %q, nil", cs.Text(), cs.Err(), "one")
	}
	if res, err := c.NewCompletion(context.Background(), cp); err != nil || res.Choices[0].Text != "one" {
		t.Errorf("whole completion: %v, %v; want %q", res, err, "one")
	}
	// Bare openai-go sends the string.
	if _, err := oc.Completions.New(context.Background(), cp); err == nil {
		t.Errorf("bare openai-go: nil error, want the server's 400 for a string stop")
	}
}
