package codec

import (
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestSignedBlocks checks the thinking blocks SignedBlocks adds up from
// a stream's deltas, as LiteLLM and Portkey stream Claude's: each block
// whole, its pieces joined and its signature on it; a redacted block
// whole; an unsigned block, a text block and the thinking_blocks the
// client itself writes beside Portkey's content_blocks left out.
func TestSignedBlocks(t *testing.T) {
	req := Chat(openai.ChatCompletionNewParams{}, true)
	for _, tc := range []struct {
		name, field, want string
		deltas            []string
	}{
		{name: "LiteLLM", field: thinkingBlocks, deltas: []string{
			`{"reasoning_content":"Think","thinking_blocks":[{"type":"thinking","thinking":"Think","signature":null}]}`,
			`{"reasoning_content":" more.","thinking_blocks":[{"type":"thinking","thinking":" more.","signature":null}]}`,
			`{"reasoning_content":"","thinking_blocks":[{"type":"thinking","thinking":"","signature":"S1"}]}`,
			`{"thinking_blocks":[{"type":"redacted_thinking","data":"R1"}]}`,
			`{"reasoning_content":"Unsigned","thinking_blocks":[{"type":"thinking","thinking":"Unsigned","signature":null}]}`,
			`{"content":"Hi"}`,
		}, want: `[{"signature":"S1","thinking":"Think more.","type":"thinking"},{"data":"R1","type":"redacted_thinking"}]`},
		{name: "Portkey", field: contentBlocks, deltas: []string{
			`{"content_blocks":[{"index":0,"delta":{"thinking":"","signature":""}}]}`,
			`{"content_blocks":[{"index":0,"delta":{"thinking":"Think"}}]}`,
			`{"content_blocks":[{"index":0,"delta":{"thinking":" more."}}]}`,
			`{"content_blocks":[{"index":0,"delta":{"signature":"S1"}}]}`,
			`{"content_blocks":[{"index":0,"delta":{}}]}`,
			`{"content_blocks":[{"index":1,"delta":{"data":"R1"}}]}`,
			`{"content":"Hi","content_blocks":[{"index":2,"delta":{"text":"Hi"}}]}`,
		}, want: `[{"signature":"S1","thinking":"Think more.","type":"thinking"},{"data":"R1","type":"redacted_thinking"}]`},
		{name: "unsigned only", field: thinkingBlocks, deltas: []string{
			`{"thinking_blocks":[{"type":"thinking","thinking":"x","signature":null}]}`,
		}},
		{name: "signature alone, no thinking member", deltas: []string{
			`{"reasoning_content":"Think"}`,
			`{"thinking_blocks":[{"type":"thinking","signature":"S1"}]}`,
		}},
		{name: "musistudio/llms thinking object", deltas: []string{
			`{"thinking":{"content":"Think"}}`,
			`{"thinking":{"content":"Think","signature":"S1"}}`,
		}},
		{name: "no blocks", deltas: []string{`{"content":"Hi"}`, `{"reasoning_content":"x"}`}},
		{name: "over the bound", field: thinkingBlocks, deltas: []string{
			`{"thinking_blocks":[{"type":"thinking","thinking":"` + strings.Repeat("x", maxSignedBytes) + `","signature":"S1"}]}`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s SignedBlocks
			for _, d := range tc.deltas {
				ev, err := req.Decode([]byte(`{"choices":[{"index":0,"delta":` + d + `}]}`))
				if err != nil {
					t.Fatal(err)
				}
				s.Add(&ev)
			}
			if got := s.JSON(); got != tc.want {
				t.Errorf("JSON() = %s, want %s", got, tc.want)
			}
			if tc.want != "" && s.Field() != tc.field {
				t.Errorf("Field() = %q, want %q", s.Field(), tc.field)
			}
		})
	}
}

// TestSignedBlocksOf checks a whole answer's blocks: the signed thinking
// and redacted blocks kept, a text block and an unsigned one left out.
func TestSignedBlocksOf(t *testing.T) {
	for raw, want := range map[string]string{
		`[{"type":"thinking","thinking":"T","signature":"S"},{"type":"text","text":"Hi"}]`: `[{"signature":"S","thinking":"T","type":"thinking"}]`,
		`[{"type":"redacted_thinking","data":"R"}]`:                                        `[{"data":"R","type":"redacted_thinking"}]`,
		`[{"type":"thinking","thinking":"T"}]`:                                             ``,
		`{"type":"thinking"}`:                                                              ``,
		`[{"type":"thinking","signature":"S"}]`:                                            ``,
	} {
		if got := SignedBlocksOf(raw); got != want {
			t.Errorf("SignedBlocksOf(%s) = %s, want %s", raw, got, want)
		}
	}
}
