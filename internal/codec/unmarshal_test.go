package codec

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// TestUnmarshalAsJSON checks that unmarshal decodes every event as
// json.Unmarshal does, and fails on the same ones with the same error:
// white space around the value, values that are no object, nesting past
// the scanner's depth, invalid and truncated JSON.
func TestUnmarshalAsJSON(t *testing.T) {
	deep := make([]byte, 0, 20002)
	for range 10001 {
		deep = append(deep, '[')
	}
	for range 10001 {
		deep = append(deep, ']')
	}
	events := []string{
		`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi","reasoning_content":"x"},"finish_reason":null}],"usage":null}`,
		" \t\r\n{\"id\":\"c2\",\"choices\":[]}\r\n ",
		`{"choices":[{"index":0,"delta":{"tool_calls":{"id":"call_1","function":{"name":"f","arguments":"{}"}}}}]}`,
		`{"type":"response.output_text.delta","delta":"Hi","item_id":"msg_1","output_index":0,"content_index":0,"sequence_number":3}`,
		`{"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":"Hi","finish_reason":"stop"}]}`,
		`{"error":{"message":"overloaded","type":"server_error"}}`,
		`null`, ` null `, `[]`, `[{"id":"x"}]`, `"text"`, `42`, `true`, `{}`,
		``, ` `, `{`, `{"id":"x"`, `{"id":"x"}}`, `{"id":"x"} {"id":"y"}`, `{"id":x}`,
		`Internal Server Error`, `{"id":"\u00"}`, `{"id":"x",}`, "{\"id\":\"\xff\"}",
		string(deep),
	}
	for _, data := range events {
		check := func(name string, got, want json.Unmarshaler) {
			t.Helper()
			gerr, werr := unmarshal([]byte(data), got), json.Unmarshal([]byte(data), want)
			if (gerr == nil) != (werr == nil) || gerr != nil && (gerr.Error() != werr.Error() || reflect.TypeOf(gerr) != reflect.TypeOf(werr)) {
				t.Errorf("unmarshal(%.40q) into %s: error %v, want %v", data, name, gerr, werr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("unmarshal(%.40q) into %s = %.200v, want %.200v", data, name, got, want)
			}
		}
		check("chat chunk", new(openai.ChatCompletionChunk), new(openai.ChatCompletionChunk))
		check("completion", new(openai.Completion), new(openai.Completion))
		check("response event", new(responses.ResponseStreamEventUnion), new(responses.ResponseStreamEventUnion))
	}
}
