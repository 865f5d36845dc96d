package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestThinkingObject checks a delta whose reasoning came as
// claude-code-router writes it, delta.thinking: a piece's content is the
// string reasoning_content and makes it output-bearing; the restated
// whole beside a signature is dropped, the signature kept as a
// thinking_blocks entry and no output; the relay's "(no content)" piece
// is dropped, no reasoning and no output; a delta with a reasoning_content of
// its own, and an object with another member, are left as they came.
func TestThinkingObject(t *testing.T) {
	req := Chat(openai.ChatCompletionNewParams{}, true)
	for _, tc := range []struct {
		name, delta string
		reasoning   string // reasoning_content's JSON after decoding, "" for none
		blocks      string // thinking_blocks' JSON, "" for none
		thinking    string // thinking's JSON after decoding, "" for none
		outputs     int
	}{
		{name: "piece", delta: `{"content":null,"thinking":{"content":"The user"}}`,
			reasoning: `"The user"`, outputs: 1},
		{name: "restated with signature", delta: `{"content":null,"thinking":{"content":"The user greets.","signature":"1788700000775"}}`,
			blocks: `[{"signature":"1788700000775","type":"thinking"}]`},
		{name: "signature alone", delta: `{"role":"assistant","content":null,"thinking":{"signature":"CiQB"}}`,
			blocks: `[{"signature":"CiQB","type":"thinking"}]`},
		{name: "placeholder before a signature", delta: `{"role":"assistant","content":null,"thinking":{"content":"(no content)"}}`},
		{name: "reasoning of its own", delta: `{"reasoning_content":"Own","thinking":{"content":"Other"}}`,
			reasoning: `"Own"`, thinking: `{"content":"Other"}`, outputs: 1},
		{name: "another member", delta: `{"thinking":{"content":"x","budget":5}}`,
			thinking: `{"content":"x","budget":5}`},
		{name: "a string", delta: `{"thinking":"x"}`, thinking: `"x"`},
		{name: "empty object", delta: `{"thinking":{}}`, thinking: `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := req.Decode([]byte(`{"choices":[{"index":0,"delta":` + tc.delta + `}]}`))
			if err != nil {
				t.Fatal(err)
			}
			extra := ev.Chunk.Choices[0].Delta.JSON.ExtraFields
			got, blocks, th := extra[reasoningContent].Raw(), extra[thinkingBlocks].Raw(), extra[thinking].Raw()
			if got != tc.reasoning || blocks != tc.blocks || th != tc.thinking || ev.Outputs != tc.outputs {
				t.Errorf("Decode(%s): reasoning_content %q, thinking_blocks %q, thinking %q, %d outputs; want %q, %q, %q, %d",
					tc.delta, got, blocks, th, ev.Outputs, tc.reasoning, tc.blocks, tc.thinking, tc.outputs)
			}
		})
	}
}
