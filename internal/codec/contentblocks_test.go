package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestContentBlocksReasoning checks a delta whose reasoning came as
// Portkey's gateway writes it without strict OpenAI compliance, in
// content_blocks: a thinking piece is the string reasoning_content and
// makes the delta output-bearing; a signature, or redacted thinking, is a
// thinking_blocks entry and no output; a block's empty start and a text
// block add nothing; content_blocks stays as it came; a delta with a
// reasoning_content of its own, and content_blocks of another shape, are
// left as they came, as is one beside OpenRouter's reasoning field.
func TestContentBlocksReasoning(t *testing.T) {
	req := Chat(openai.ChatCompletionNewParams{}, true)
	for _, tc := range []struct {
		name, delta string
		reasoning   string // reasoning_content's JSON after decoding, "" for none
		blocks      string // thinking_blocks' JSON, "" for none
		outputs     int
	}{
		{name: "thinking piece", delta: `{"content_blocks":[{"index":0,"delta":{"thinking":"The user asks"}}]}`,
			reasoning: `"The user asks"`, outputs: 1},
		{name: "gemini thought beside text", delta: `{"role":"assistant","content":"Hi","content_blocks":[{"index":0,"delta":{"thinking":"Greet."}},{"index":1,"delta":{"text":"Hi"}}]}`,
			reasoning: `"Greet."`, outputs: 1},
		{name: "signature", delta: `{"content_blocks":[{"index":0,"delta":{"signature":"EqQB"}}]}`,
			blocks: `[{"signature":"EqQB","type":"thinking"}]`},
		{name: "redacted", delta: `{"content_blocks":[{"index":0,"delta":{"data":"EmwKAh"}}]}`,
			blocks: `[{"data":"EmwKAh","type":"redacted_thinking"}]`},
		{name: "block start", delta: `{"content_blocks":[{"index":0,"delta":{"thinking":"","signature":""}}]}`},
		{name: "text block", delta: `{"content":"Hi","content_blocks":[{"index":1,"delta":{"text":"Hi"}}]}`, outputs: 1},
		{name: "reasoning of its own", delta: `{"reasoning_content":"Own","content_blocks":[{"index":0,"delta":{"thinking":"Other"}}]}`,
			reasoning: `"Own"`, outputs: 1},
		{name: "reasoning of its own, OpenRouter's field", delta: `{"reasoning":"Own","content_blocks":[{"index":0,"delta":{"thinking":"Own"}}]}`,
			outputs: 1},
		{name: "thinking not a string", delta: `{"content_blocks":[{"index":0,"delta":{"thinking":{"text":"x"}}}]}`},
		{name: "an object", delta: `{"content_blocks":{"index":0,"delta":{"thinking":"x"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := req.Decode([]byte(`{"choices":[{"index":0,"delta":` + tc.delta + `}]}`))
			if err != nil {
				t.Fatal(err)
			}
			extra := ev.Chunk.Choices[0].Delta.JSON.ExtraFields
			got, blocks := extra[reasoningContent].Raw(), extra[thinkingBlocks].Raw()
			if got != tc.reasoning || blocks != tc.blocks || ev.Outputs != tc.outputs {
				t.Errorf("Decode(%s): reasoning_content %q, thinking_blocks %q, %d outputs; want %q, %q, %d",
					tc.delta, got, blocks, ev.Outputs, tc.reasoning, tc.blocks, tc.outputs)
			}
			if _, ok := extra[contentBlocks]; !ok {
				t.Errorf("Decode(%s): content_blocks dropped, want it kept", tc.delta)
			}
		})
	}
}
