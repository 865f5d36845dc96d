package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestReasoningObject checks a delta whose reasoning_content came as an
// object, as Envoy AI Gateway up to v1.0.x streamed it: its text is the
// string reasoning_content and makes it output-bearing; a signature or a
// redacted thinking alone is a thinking_blocks entry and no output; a
// string reasoning_content, thinking_blocks of the server's own, and an
// object with any member Envoy's type has not are left as they are.
func TestReasoningObject(t *testing.T) {
	req := Chat(openai.ChatCompletionNewParams{}, true)
	for _, tc := range []struct {
		name, delta string
		reasoning   string // reasoning_content's JSON after decoding
		blocks      string // thinking_blocks' JSON, "" for none
		outputs     int
	}{
		{name: "text", delta: `{"role":"assistant","reasoning_content":{"text":"Check 13."}}`,
			reasoning: `"Check 13."`, outputs: 1},
		{name: "signature alone", delta: `{"role":"assistant","reasoning_content":{"signature":"EqQB"}}`,
			reasoning: `""`, blocks: `[{"signature":"EqQB","type":"thinking"}]`},
		{name: "text and signature", delta: `{"reasoning_content":{"text":"Hmm","signature":"EqQB"},"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`,
			reasoning: `"Hmm"`, blocks: `[{"signature":"EqQB","type":"thinking"}]`, outputs: 1},
		{name: "redacted", delta: `{"reasoning_content":{"redactedContent":"AAEC"}}`,
			reasoning: `""`, blocks: `[{"data":"AAEC","type":"redacted_thinking"}]`},
		{name: "string", delta: `{"reasoning_content":"Own"}`, reasoning: `"Own"`, outputs: 1},
		{name: "blocks of its own", delta: `{"reasoning_content":{"signature":"S"},"thinking_blocks":[{"type":"thinking","signature":"T"}]}`,
			reasoning: `""`, blocks: `[{"type":"thinking","signature":"T"}]`},
		// Another server's object, which Envoy's type never writes, is left
		// as it came, and counts as it did: a video relay's progress, a
		// text beside other members.
		{name: "progress of another server", delta: `{"reasoning_content":{"stage":"generation","status":"processing","progress":50}}`,
			reasoning: `{"stage":"generation","status":"processing","progress":50}`, outputs: 1},
		{name: "text beside another key", delta: `{"reasoning_content":{"text":"Hmm","encrypted":"AAEC"}}`,
			reasoning: `{"text":"Hmm","encrypted":"AAEC"}`, outputs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := req.Decode([]byte(`{"choices":[{"index":0,"delta":` + tc.delta + `}]}`))
			if err != nil {
				t.Fatal(err)
			}
			extra := ev.Chunk.Choices[0].Delta.JSON.ExtraFields
			got, blocks := extra[reasoningContent].Raw(), extra[thinkingBlocks].Raw()
			if got != tc.reasoning || blocks != tc.blocks || ev.Outputs != tc.outputs {
				t.Errorf("reasoning_content %s, thinking_blocks %s, %d outputs; want %s, %s, %d", got, blocks, ev.Outputs, tc.reasoning, tc.blocks, tc.outputs)
			}
		})
	}
}
