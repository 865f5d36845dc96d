package tokenpace_test

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/tidwall/gjson"

	"github.com/tokenpace/tokenpace"
)

// TestBareTools: llama.cpp's server of 2025 refuses with 500 a request
// whose function tool has no description, or no parameters (recorded
// live from its build of July 2025), though OpenAI's API makes both
// optional and openai-go leaves them out. openai-go sent it three times,
// each refused. The caller now gets the answer: the request is sent again
// at once with an empty description and parameters without properties
// where they lacked, the tools that had them unchanged, and the next
// request to that server goes so from the start.
func TestBareTools(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		noDescription := loadRecording(t, "llamacpp-2025-tools-no-description.jsonl")
		noParameters := loadRecording(t, "llamacpp-2025-tools-no-parameters.jsonl")
		answer := loadRecording(t, "llamacpp-2025-tools-stream.jsonl")
		var mu sync.Mutex
		var sent []string // the tools of every request, as sent
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			tools := gjson.GetBytes(b, "tools")
			mu.Lock()
			sent = append(sent, tools.Raw)
			mu.Unlock()
			for _, tool := range tools.Array() {
				switch {
				case !tool.Get("function.description").Exists():
					replay(noDescription)(w, r)
					return
				case !tool.Get("function.parameters").Exists():
					replay(noParameters)(w, r)
					return
				}
			}
			replay(answer)(w, r)
		}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		p := chat("tiny", 8)
		p.Tools = []openai.ChatCompletionToolUnionParam{
			openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "get_weather",
				Parameters: openai.FunctionParameters{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}),
			openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "now", Description: openai.String("the time")}),
		}
		const filled = `[{"function":{"name":"get_weather","parameters":{"properties":{"city":{"type":"string"}},"type":"object"},"description":""},"type":"function"},{"function":{"name":"now","description":"the time","parameters":{"type":"object","properties":{}}},"type":"function"}]`

		got := readChat(c.NewStreaming(context.Background(), p))
		// The server's answer: its generic tool-call format held back
		// 8 tokens that parsed as neither text nor a call.
		if got.err != nil || got.tm.FinishReason != "length" || got.tm.OutputTokens != 8 {
			t.Fatalf("first call: finish %q, %d output tokens, err %v; want the answer: \"length\", 8", got.tm.FinishReason, got.tm.OutputTokens, got.err)
		}
		if n := len(got.tm.HTTP); n != 2 || got.tm.HTTP[0].Status != http.StatusInternalServerError {
			t.Errorf("first call: %d HTTP attempts, want 2, the first refused with 500", n)
		}
		got = readChat(c.NewStreaming(context.Background(), p))
		if got.err != nil || len(got.tm.HTTP) != 1 {
			t.Errorf("second call: err %v, %d HTTP attempts; want the answer at once", got.err, len(got.tm.HTTP))
		}
		mu.Lock()
		defer mu.Unlock()
		if len(sent) != 3 || sent[1] != filled || sent[2] != filled {
			t.Errorf("tools sent:\n%s\nwant the caller's, then twice\n%s", sent, filled)
		}
	})
}
