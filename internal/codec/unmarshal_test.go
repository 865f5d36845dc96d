package codec

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// unmarshalEvents are events of every kind unmarshal may be given: white
// space around the value, values that are no object, invalid and truncated
// JSON, text that is no JSON, a byte order mark, duplicate members.
var unmarshalEvents = []string{
	`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi","reasoning_content":"x"},"finish_reason":null}],"usage":null}`,
	" \t\r\n{\"id\":\"c2\",\"choices\":[]}\r\n ",
	`{"choices":[{"index":0,"delta":{"tool_calls":{"id":"call_1","function":{"name":"f","arguments":"{}"}}}}]}`,
	`{"type":"response.output_text.delta","delta":"Hi","item_id":"msg_1","output_index":0,"content_index":0,"sequence_number":3}`,
	`{"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":"Hi","finish_reason":"stop"}]}`,
	`{"error":{"message":"overloaded","type":"server_error"}}`,
	`null`, ` null `, `[]`, `[{"id":"x"}]`, `"text"`, `42`, `true`, `{}`,
	``, ` `, `{`, `{"id":"x"`, `{"id":"x"}}`, `{"id":"x"} {"id":"y"}`, `{"id":x}`,
	`Internal Server Error`, `{"id":"\u00"}`, `{"id":"x",}`, "{\"id\":\"\xff\"}",
	"\xef\xbb\xbf{\"id\":\"x\"}", `{"id":"a","id":"b"}`, `{"choices":[{"index":0,"delta":{"content":"a"}}],"choices":[]}`,
}

// TestUnmarshalAsJSON checks that unmarshal decodes every event as
// json.Unmarshal does, and fails on the same ones with the same error,
// nesting past the scanner's depth among them.
func TestUnmarshalAsJSON(t *testing.T) {
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	for _, data := range append(unmarshalEvents, deep) {
		checkUnmarshal(t, []byte(data))
	}
}

// FuzzUnmarshalAsJSON is TestUnmarshalAsJSON on any bytes.
func FuzzUnmarshalAsJSON(f *testing.F) {
	for _, data := range unmarshalEvents {
		f.Add([]byte(data))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkUnmarshal(t, data) })
}

// checkUnmarshal checks that unmarshal gives data's chat chunk, completion
// and Responses event as json.Unmarshal does, with the same error.
func checkUnmarshal(t *testing.T, data []byte) {
	t.Helper()
	check := func(name string, got, want json.Unmarshaler) {
		t.Helper()
		gerr, werr := unmarshal(data, got), json.Unmarshal(data, want)
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
