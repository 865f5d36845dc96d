package tokenpace_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestWholeToolCallsFinish: a whole answer whose message holds tool calls
// but whose server said "stop" (Gemini's OpenAI endpoint, as logged in
// microsoft/autogen#4878; KoboldCpp 1.76, whose calls come as the model
// wrote them, the arguments an object: koboldcpp.py's non-streamed chat
// answer) reached the caller as a turn that had ended: an agent loop that
// waits for "tool_calls" stopped there. It now finishes for "tool_calls",
// as a stream's Accumulated() does, with the arguments as a JSON string
// for the next request; Timing keeps the server's "stop". The request
// offers a tool, as an agent loop's does. A message without calls keeps
// its "stop".
func TestWholeToolCallsFinish(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bodies := map[string]string{
			"gemini":    `{"id":null,"choices":[{"finish_reason":"stop","index":0,"logprobs":null,"message":{"content":null,"refusal":null,"role":"assistant","tool_calls":[{"id":"","function":{"arguments":"{\"query\":\"AutoGen\"}","name":"web_search"},"type":"function"}]}}],"created":1737330953,"model":"gemini-2.0-flash-exp","object":"chat.completion","usage":{"completion_tokens":6,"prompt_tokens":50,"total_tokens":56}}`,
			"koboldcpp": `{"id": "chatcmpl-A1", "object": "chat.completion", "created": 1796527707, "model": "koboldcpp/tiny", "usage": {"prompt_tokens": 100, "completion_tokens": 100, "total_tokens": 200}, "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "call_weather", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}, "finish_reason": "stop"}]}`,
			"text":      `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`,
		}
		handlers := map[string]http.Handler{}
		for model, body := range bodies {
			handlers[model] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(body))
			})
		}
		url, hc := serve(t, byModel(handlers))
		c := tokenpace.NewClient(openaiClient(url, hc))
		for model, want := range map[string]struct{ finish, args string }{
			"gemini":    {"tool_calls", `{"query":"AutoGen"}`},
			"koboldcpp": {"tool_calls", `{"city": "Paris"}`},
			"text":      {"stop", ""},
		} {
			var tm *tokenpace.Timing
			params := chat(model, 16)
			params.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "web_search"})}
			res, err := c.New(context.Background(), params, tokenpace.WithTimingInto(&tm))
			if err != nil || len(res.Choices) != 1 {
				t.Fatalf("%s: %v, %v", model, res, err)
			}
			ch := res.Choices[0]
			if string(ch.FinishReason) != want.finish || tm.FinishReason != "stop" {
				t.Errorf("%s: finish %q, Timing's %q; want %q, and the server's \"stop\"", model, ch.FinishReason, tm.FinishReason, want.finish)
			}
			if want.args == "" {
				continue
			}
			if len(ch.Message.ToolCalls) != 1 || ch.Message.ToolCalls[0].Function.Arguments != want.args {
				t.Errorf("%s: calls %+v, want one with arguments %s", model, ch.Message.ToolCalls, want.args)
			}
			p := ch.Message.ToParam()
			if p.OfAssistant == nil || len(p.OfAssistant.ToolCalls) != 1 || p.OfAssistant.ToolCalls[0].OfFunction.Function.Arguments != want.args {
				t.Errorf("%s: the next request's message %+v, want the call with its arguments as a string", model, p.OfAssistant)
			}
		}
	})
}
