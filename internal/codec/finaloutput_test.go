package codec

import (
	"testing"

	"github.com/openai/openai-go/v3/responses"
)

// TestFinalOutput: what a Responses stream's final event gives the caller
// of the output its response holds and no event before it gave. A stream
// that is response.completed alone (LiteLLM's fake stream,
// BerriAI/litellm#9545, #21090) carries its message's text and its call;
// a stream that streamed its text, or output anything before a call left
// to response.completed (SGLang's gpt-oss stream), keeps what it gave.
func TestFinalOutput(t *testing.T) {
	const (
		reasoningText = `{"type":"reasoning","id":"rs","summary":[],"content":[{"type":"output_text","text":"Thinking."}]}`
		message       = `{"type":"message","id":"m","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Hello there.","annotations":[]}]}`
		call          = `{"type":"function_call","id":"fc","call_id":"call_1","name":"get_weather","arguments":"{\"location\":\"Paris\"}","status":"completed"}`
		delta         = `{"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"Hello there."}`
		reasoning     = `{"type":"response.reasoning_text.delta","item_id":"rs","output_index":0,"content_index":0,"delta":"Thinking."}`
	)
	completed := func(output string) string {
		return `{"type":"response.completed","response":{"id":"r","object":"response","status":"completed","model":"m","output":[` + output + `]}}`
	}
	for _, tc := range []struct {
		name     string
		events   []string
		text     string // the final event's content
		outputs  int
		toolCall bool
	}{
		{"text only in response.completed", []string{completed(message)}, "Hello there.", 1, false},
		{"a reasoning item's output_text is not the text", []string{completed(reasoningText + "," + message)}, "Hello there.", 1, false},
		{"a call only in response.completed", []string{completed(call)}, "", 1, true},
		{"text and a call only in response.completed", []string{completed(message + "," + call)}, "Hello there.", 1, true},
		{"text streamed before", []string{delta, completed(message)}, "", 0, false},
		{"text streamed, the call only in response.completed", []string{delta, completed(message + "," + call)}, "", 0, false},
		{"reasoning streamed, the call only in response.completed", []string{reasoning, completed(call)}, "", 0, false},
		{"reasoning streamed, the text only in response.completed", []string{reasoning, completed(message)}, "Hello there.", 1, false},
		{"nothing in response.completed", []string{completed("")}, "", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dec := DecoderFor(Response(responses.ResponseNewParams{}))
			var last Event
			for _, e := range tc.events {
				ev, err := dec.Decode([]byte(e))
				if err != nil {
					t.Fatal(err)
				}
				last = ev
			}
			if !last.Final {
				t.Fatal("the last event is not final")
			}
			if got := last.Chunk.Choices[0].Delta.Content; got != tc.text || last.Outputs != tc.outputs || last.ToolCall != tc.toolCall {
				t.Errorf("final event = (%q, %d outputs, tool call %v), want (%q, %d, %v)", got, last.Outputs, last.ToolCall, tc.text, tc.outputs, tc.toolCall)
			}
		})
	}
}
