package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestWriterValue: an event of Writer's own text-generation format,
// {"value": <text>}, is a completion chunk of that text, written with or
// without spaces around its colon and braces, as JSON allows; an event with
// any other member, or whose value is no string, is not read as one.
func TestWriterValue(t *testing.T) {
	req := Completion(openai.CompletionNewParams{Model: "palmyra-x5"}, true)
	for _, tc := range []struct {
		data    string
		text    string
		outputs int
	}{
		{`{"value":"Hello"}`, "Hello", 1},
		{`{"value":""}`, "", 0},
		{`{"value":" [\"x\"]"}`, ` ["x"]`, 1},
		{`{"value":"a","choices":[{"index":0,"text":"b"}]}`, "b", 1},
		{`{"value":7}`, "", 0},
		{`{"value": "Hello"}`, "Hello", 1},
		{"{ \"value\" :\t\"Hello\" }", "Hello", 1},
		{"{\n  \"value\": \"Hello\"\n}", "Hello", 1},
		{`{"value": 7}`, "", 0},
		{`{"values": "Hello"}`, "", 0},
	} {
		ev, err := req.Decode([]byte(tc.data))
		if err != nil {
			t.Errorf("Decode(%s) = %v, want no error", tc.data, err)
			continue
		}
		text := ""
		if len(ev.Chunk.Choices) > 0 {
			text = ev.Chunk.Choices[0].Delta.Content
		}
		if text != tc.text || ev.Outputs != tc.outputs {
			t.Errorf("Decode(%s) = text %q, %d outputs, want %q, %d", tc.data, text, ev.Outputs, tc.text, tc.outputs)
		}
	}
}
