package tokenpace_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestLengthFinish: an answer that streamed as many output deltas as the
// request allowed tokens ran into its limit, and Accumulated() says
// "length" though its server said "stop" (one-api's Ollama channel; see
// the conformance fixture oneapi-ollama-length-as-stop.jsonl); Timing
// keeps what the server sent. A natural stop is kept: one token short of
// the limit with the end-of-sequence token counted in the usage, as
// vLLM counts it; a usage under the limit, however many deltas came (a
// relay that splits tokens); or no limit asked.
func TestLengthFinish(t *testing.T) {
	const stop = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	const usage3 = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}` + "\n\n"
	for _, tt := range []struct {
		name   string
		max    int // 0: none asked
		events []string
		want   string
	}{
		{"every allowed token, then stop", 3, []string{contentEvent("a"), contentEvent("b"), contentEvent("c"), stop, "data: [DONE]\n\n"}, "length"},
		{"a natural stop a token short, the end-of-sequence token in the usage", 3,
			[]string{contentEvent("a"), contentEvent("b"), stop, usage3, "data: [DONE]\n\n"}, "stop"},
		{"a tool call cut at the limit, then stop", 3, []string{
			`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}` + "\n\n",
			`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"ci"}}]},"finish_reason":null}]}` + "\n\n",
			`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\":"}}]},"finish_reason":null}]}` + "\n\n",
			stop, "data: [DONE]\n\n"}, "length"},
		{"a whole tool call in pieces, then stop, the usage under the limit", 3, []string{
			`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]},"finish_reason":null}]}` + "\n\n",
			`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{"}}]},"finish_reason":null}]}` + "\n\n",
			`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]},"finish_reason":null}]}` + "\n\n",
			stop, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}` + "\n\n",
			"data: [DONE]\n\n"}, "tool_calls"},
		{"no limit asked", 0, []string{contentEvent("a"), contentEvent("b"), contentEvent("c"), stop, "data: [DONE]\n\n"}, "stop"},
		{"a token split into deltas, the usage under the limit", 4,
			[]string{contentEvent("a"), contentEvent("b"), contentEvent("c"), contentEvent("d"), stop, usage3, "data: [DONE]\n\n"}, "stop"},
	} {
		// A caller may look at Accumulated() after every chunk, as
		// openai-go's accumulator is read: the finish reason is the same
		// at the end.
		for _, every := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/every chunk %v", tt.name, every), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					url, hc := serve(t, script("text/event-stream", tt.events...))
					p := chat("m", tt.max)
					p.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "get_weather"})}
					if tt.max == 0 {
						p.MaxTokens = openai.ChatCompletionNewParams{}.MaxTokens // unset
					}
					s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), p)
					for s.Next() {
						if every {
							s.Accumulated()
						}
					}
					s.Close()
					if err := s.Err(); err != nil {
						t.Fatal(err)
					}
					if got := s.Accumulated().Choices[0].FinishReason; got != tt.want {
						t.Errorf("Accumulated() finish reason %q, want %q", got, tt.want)
					}
					if got := s.Timing().FinishReason; got != "stop" {
						t.Errorf("Timing().FinishReason %q, want the server's \"stop\"", got)
					}
				})
			})
		}
	}
}
