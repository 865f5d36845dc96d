package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestTensorZeroThoughts checks a delta of TensorZero's OpenAI-compatible
// endpoint whose thinking comes in tensorzero_extra_content: the text of
// its thought blocks (or their summary_text) is its reasoning_content and
// makes it output-bearing; a block of another type, a thought with only
// its signature, and a delta that has reasoning_content of its own are
// left as they are.
func TestTensorZeroThoughts(t *testing.T) {
	req := Chat(openai.ChatCompletionNewParams{}, true)
	for _, tc := range []struct {
		name, delta string
		reasoning   string // reasoning_content's JSON, "" for none
		outputs     int
	}{
		{name: "thought", delta: `{"role":"assistant","tensorzero_extra_content":[{"type":"thought","insert_index":0,"id":"0","text":"Hmm","signature":null,"summary_id":null,"summary_text":null}]}`,
			reasoning: `"Hmm"`, outputs: 1},
		{name: "summary only", delta: `{"tensorzero_extra_content":[{"type":"thought","insert_index":0,"id":"0","text":null,"summary_id":"0","summary_text":"Weighs it."}]}`,
			reasoning: `"Weighs it."`, outputs: 1},
		{name: "signature alone", delta: `{"tensorzero_extra_content":[{"type":"thought","insert_index":0,"id":"0","text":null,"signature":"EqQB","summary_id":null,"summary_text":null}]}`},
		{name: "unknown block", delta: `{"tensorzero_extra_content":[{"type":"unknown","insert_index":1,"id":"1","data":{"x":1}}]}`},
		{name: "not an array", delta: `{"tensorzero_extra_content":{"type":"thought","text":"Hmm"}}`},
		{name: "reasoning_content of its own", delta: `{"reasoning_content":"Own","tensorzero_extra_content":[{"type":"thought","insert_index":0,"id":"0","text":"Hmm"}]}`,
			reasoning: `"Own"`, outputs: 1},
		{name: "text beside", delta: `{"content":"Hi","tensorzero_extra_content":[{"type":"thought","insert_index":0,"id":"0","text":"A"},{"type":"thought","insert_index":2,"id":"2","text":"B"}]}`,
			reasoning: `"AB"`, outputs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := req.Decode([]byte(`{"choices":[{"index":0,"delta":` + tc.delta + `}]}`))
			if err != nil {
				t.Fatal(err)
			}
			got := ev.Chunk.Choices[0].Delta.JSON.ExtraFields[reasoningContent].Raw()
			if got != tc.reasoning || ev.Outputs != tc.outputs || ev.Reasoning != (tc.reasoning != "") {
				t.Errorf("reasoning_content %s, %d outputs, Reasoning %v; want %s, %d, %v", got, ev.Outputs, ev.Reasoning, tc.reasoning, tc.outputs, tc.reasoning != "")
			}
		})
	}
}
