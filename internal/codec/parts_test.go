package codec

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestContentParts checks a delta whose content is an array of parts
// (Mistral): text parts are its content, thinking parts its reasoning,
// other parts left out, and an array of anything else refused.
func TestContentParts(t *testing.T) {
	req := Chat(openai.ChatCompletionNewParams{}, true)
	for _, tc := range []struct {
		name, content     string
		text, reasoning   string
		outputs           int
		malformed, absent bool // refused; no reasoning field
	}{
		{name: "string", content: `"Hello"`, text: "Hello", outputs: 1, absent: true},
		{name: "text part", content: `[{"type":"text","text":"Hello"}]`, text: "Hello", outputs: 1, absent: true},
		{name: "thinking part", content: `[{"type":"thinking","thinking":[{"type":"text","text":"Hmm"},{"type":"text","text":"."}]}]`,
			reasoning: "Hmm.", outputs: 1},
		{name: "both, and a part of another type", content: `[{"type":"thinking","thinking":[{"type":"text","text":"Hmm"}]},{"type":"image_url","image_url":"x"},{"type":"text","text":"Hi"}]`,
			text: "Hi", reasoning: "Hmm", outputs: 1},
		{name: "empty array", content: `[]`, absent: true},
		{name: "null", content: `null`, absent: true},
		{name: "not parts", content: `[1,2]`, malformed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := req.Decode([]byte(`{"choices":[{"index":0,"delta":{"content":` + tc.content + `}}]}`))
			if tc.malformed {
				var e *Error
				if !errors.As(err, &e) || e.TooLarge || e.Server != nil {
					t.Fatalf("err = %v, want a malformed event", err)
				}
				return
			}
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
