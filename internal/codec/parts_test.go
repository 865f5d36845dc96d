package codec

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestContentParts checks a delta whose content is an array of parts
// (Mistral, Databricks): text parts are its content, thinking and
// reasoning parts its reasoning, parts of other types or shapes left out.
func TestContentParts(t *testing.T) {
	req := Chat(openai.ChatCompletionNewParams{}, true)
	for _, tc := range []struct {
		name, content   string
		text, reasoning string
		outputs         int
		absent          bool // no reasoning field
	}{
		{name: "string", content: `"Hello"`, text: "Hello", outputs: 1, absent: true},
		{name: "text part", content: `[{"type":"text","text":"Hello"}]`, text: "Hello", outputs: 1, absent: true},
		{name: "thinking part", content: `[{"type":"thinking","thinking":[{"type":"text","text":"Hmm"},{"type":"text","text":"."}]}]`,
			reasoning: "Hmm.", outputs: 1},
		{name: "both, and a part of another type", content: `[{"type":"thinking","thinking":[{"type":"text","text":"Hmm"}]},{"type":"image_url","image_url":"x"},{"type":"text","text":"Hi"}]`,
			text: "Hi", reasoning: "Hmm", outputs: 1},
		{name: "reasoning part (Databricks)", content: `[{"type":"reasoning","summary":[{"type":"summary_text","text":"Hmm","signature":""},{"type":"summary_text","text":".","signature":""}]}]`,
			reasoning: "Hmm.", outputs: 1},
		{name: "reasoning part with its signature alone", content: `[{"type":"reasoning","summary":[{"type":"summary_text","text":"","signature":"EqQB"}]}]`, absent: true},
		{name: "empty array", content: `[]`, absent: true},
		{name: "null", content: `null`, absent: true},
		{name: "not parts", content: `[1,2]`, absent: true},
		{name: "thinking a string, a part of unknown shape", content: `[{"type":"thinking","thinking":"Hmm"},{"type":"text","text":{"value":"x"}},{"type":"text","text":"Hi"}]`,
			text: "Hi", reasoning: "Hmm", outputs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := req.Decode([]byte(`{"choices":[{"index":0,"delta":{"content":` + tc.content + `}}]}`))
			if err != nil {
				t.Fatal(err)
			}
			d := ev.Chunk.Choices[0].Delta
			f, ok := d.JSON.ExtraFields["reasoning_content"]
			var reasoning string
			if ok {
				if err := json.Unmarshal([]byte(f.Raw()), &reasoning); err != nil {
					t.Fatal(err)
				}
			}
			if d.Content != tc.text || reasoning != tc.reasoning || ok == tc.absent || ev.Outputs != tc.outputs {
				t.Errorf("content %q, reasoning %q (field %v), %d outputs; want %q, %q (%v), %d", d.Content, reasoning, ok, ev.Outputs, tc.text, tc.reasoning, !tc.absent, tc.outputs)
			}
		})
	}
}
