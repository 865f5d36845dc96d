package codec

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// TestAssemble checks the whole responses gathered from event streams
// that answered non-streaming requests, as openai-go decodes them, and
// the streams refused.
func TestAssemble(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, false)
	ev := func(s string) string { return "data: " + s + "\n\n" }
	t.Run("chat", func(t *testing.T) {
		body := ev(`{"id":"a","object":"chat.completion.chunk","created":7,"model":"DeepSeek-V3","choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"Hm.","tool_calls":null},"finish_reason":null,"matched_stop":null}]}`) +
			ev(`{"id":"a","object":"chat.completion.chunk","created":7,"model":"DeepSeek-V3","choices":[{"index":0,"delta":{"role":null,"content":"Hel","tool_calls":null},"finish_reason":null}]}`) +
			ev(`{"id":"a","object":"chat.completion.chunk","created":7,"model":"DeepSeek-V3","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop","matched_stop":1}],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}`) +
			"data: [DONE]\n\n"
		cc, b := assembleChat(t, body)
		m := cc.Choices[0].Message
		if cc.ID != "a" || cc.Model != "DeepSeek-V3" || m.Content != "Hello" || cc.Choices[0].FinishReason != "stop" ||
			m.JSON.ExtraFields["reasoning_content"].Raw() != `"Hm."` || cc.Usage.PromptTokens != 5 || cc.Usage.CompletionTokens != 3 {
			t.Errorf("assembled %s", b)
		}
	})
	t.Run("chat tool calls at index 0", func(t *testing.T) {
		body := ev(`{"id":"b","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"x","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}`) +
			ev(`{"id":"b","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"y","type":"function","function":{"name":"g","arguments":"[]"}}]},"finish_reason":"tool_calls"}]}`)
		cc, b := assembleChat(t, body)
		if tc := cc.Choices[0].Message.ToolCalls; len(tc) != 2 || tc[0].Function.Name != "f" || tc[1].ID != "y" || tc[1].Function.Arguments != "[]" {
			t.Errorf("assembled %s", b)
		}
	})
	t.Run("chat legacy function call", func(t *testing.T) {
		// The legacy functions API's call streamed as function_call
		// deltas (openai/openai-python#488, openai/openai-node#188): the
		// whole answer's message holds it, as Accumulated() does.
		body := ev(`{"id":"d","object":"chat.completion.chunk","created":7,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"role":"assistant","content":null,"function_call":{"name":"get_current_weather","arguments":""}},"finish_reason":null}]}`) +
			ev(`{"id":"d","object":"chat.completion.chunk","created":7,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"function_call":{"arguments":"{\"location\":"}},"finish_reason":null}]}`) +
			ev(`{"id":"d","object":"chat.completion.chunk","created":7,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"function_call":{"arguments":" \"Boston\"}"}},"finish_reason":null}]}`) +
			ev(`{"id":"d","object":"chat.completion.chunk","created":7,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{},"finish_reason":"function_call"}]}`) +
			"data: [DONE]\n\n"
		cc, b := assembleChat(t, body)
		//lint:ignore SA1019 the legacy functions API is what the test reads
		fc := cc.Choices[0].Message.FunctionCall
		if fc.Name != "get_current_weather" || fc.Arguments != `{"location": "Boston"}` || cc.Choices[0].FinishReason != "function_call" {
			t.Errorf("assembled %s, want the message's function_call get_current_weather({\"location\": \"Boston\"})", b)
		}
	})
	t.Run("completion", func(t *testing.T) {
		body := ev(`{"id":"c","object":"text_completion","model":"m","choices":[{"index":0,"text":"def ","finish_reason":null}]}`) +
			ev(`{"id":"c","object":"text_completion","model":"m","choices":[{"index":0,"text":"add","finish_reason":"length"}],"usage":{"prompt_tokens":2,"completion_tokens":2,"total_tokens":4}}`)
		b, err := Assemble(Completion(openai.CompletionNewParams{}, false), strings.NewReader(body), 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		var c openai.Completion
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		if c.Choices[0].Text != "def add" || c.Choices[0].FinishReason != "length" || c.Usage.TotalTokens != 4 {
			t.Errorf("assembled %s", b)
		}
	})
	t.Run("response", func(t *testing.T) {
		body := "event: response.output_text.delta\n" + ev(`{"type":"response.output_text.delta","delta":"Hi"}`) +
			"event: response.completed\n" + ev(`{"type":"response.completed","response":{"id":"r","object":"response","status":"completed","output":[{"type":"message","id":"m","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Hi","annotations":[]}]}],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}}`)
		b, err := Assemble(Response(responses.ResponseNewParams{}), strings.NewReader(body), 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		var r responses.Response
		if err := json.Unmarshal(b, &r); err != nil || r.OutputText() != "Hi" {
			t.Errorf("assembled %s (%v)", b, err)
		}
	})
	t.Run("response whose final event has no output", func(t *testing.T) {
		body := ev(`{"type":"response.output_text.delta","delta":"Hel"}`) + ev(`{"type":"response.output_text.delta","delta":"lo"}`) +
			ev(`{"type":"response.completed","response":{"id":"r","object":"response","status":"completed","output":[],"usage":{"input_tokens":1,"output_tokens":2,"total_tokens":3}}}`)
		b, err := Assemble(Response(responses.ResponseNewParams{}), strings.NewReader(body), 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		var r responses.Response
		if err := json.Unmarshal(b, &r); err != nil || r.OutputText() != "Hello" || r.Usage.OutputTokens != 2 || r.ID != "r" {
			t.Errorf("assembled %s (%v)", b, err)
		}
	})
	for _, tc := range []struct {
		name, body string
		req        Request
		check      func(*Error) bool
	}{
		{"cut before the finish", ev(`{"id":"a","choices":[{"index":0,"delta":{"content":"Hel"}}]}`), chat, func(e *Error) bool { return e.Truncated }},
		{"empty", "", chat, func(e *Error) bool { return e.Truncated }},
		{"error event", ev(`{"id":"a","choices":[{"index":0,"delta":{"content":"Hel"}}]}`) + ev(`{"error":{"message":"overloaded"}}`), chat,
			func(e *Error) bool { return e.Server != nil }},
		{"malformed", ev(`{"choices":x}`), chat, func(e *Error) bool { return !e.TooLarge && e.Server == nil && !e.Truncated }},
		{"event cut short", ev(`{"choices":`), chat, func(e *Error) bool { return e.Truncated && e.Detail == eventCut }},
		{"event cut short, the body going on", ev(`{"choices":[{"index":0,"delta":{"content":"line one`) + ev(`{"id":"a","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`) + "data: [DONE]\n\n", chat,
			func(e *Error) bool { return !e.Truncated && e.Server == nil && !e.TooLarge }},
		{"response without its final event", ev(`{"type":"response.output_text.delta","delta":"Hi"}`), Response(responses.ResponseNewParams{}),
			func(e *Error) bool { return e.Truncated }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Assemble(tc.req, strings.NewReader(tc.body), 1<<20)
			var e *Error
			if !errors.As(err, &e) || !tc.check(e) {
				t.Errorf("err = %v (%+v)", err, e)
			}
		})
	}
	t.Run("line over the bound", func(t *testing.T) {
		if _, err := Assemble(chat, strings.NewReader(ev(strings.Repeat("x", 100))), 64); err == nil {
			t.Error("err = nil, want the line's")
		}
	})
}

// assembleChat assembles body, the event stream of a chat completion,
// and decodes the JSON it gives, which it returns too.
func assembleChat(t *testing.T, body string) (openai.ChatCompletion, []byte) {
	t.Helper()
	b, err := Assemble(Chat(openai.ChatCompletionNewParams{}, false), strings.NewReader(body), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var cc openai.ChatCompletion
	if err := json.Unmarshal(b, &cc); err != nil {
		t.Fatal(err)
	}
	return cc, b
}
