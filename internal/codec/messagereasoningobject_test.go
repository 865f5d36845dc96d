package codec

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestMessageReasoningObject checks a whole answer whose message carries
// its reasoning as a relay writes it: Envoy AI Gateway's Bedrock
// reasoning block and claude-code-router's thinking object become the
// string reasoning_content and a thinking_blocks entry, in the message the
// caller gets and in the delta a stream given the whole answer shows;
// the thoughts beside a signature are kept, the relay's placeholder is
// not; thinking_blocks of the relay's own, a reasoning_content of its own,
// and objects of any other shape are left as they came.
func TestMessageReasoningObject(t *testing.T) {
	req := Chat(openai.ChatCompletionNewParams{}, true)
	for _, tc := range []struct {
		name, message string
		reasoning     string // reasoning_content's JSON after decoding, "" for none
		blocks        string // thinking_blocks' JSON, "" for none
		thinking      string // thinking's JSON after decoding, "" for none
	}{
		{name: "Envoy thinking", message: `"reasoning_content":{"reasoningContent":{"reasoningText":{"text":"Check 13.","signature":"EqQB"}}}`,
			reasoning: `"Check 13."`, blocks: `[{"signature":"EqQB","type":"thinking"}]`},
		{name: "Envoy redacted", message: `"reasoning_content":{"reasoningContent":{"redactedContent":"AAEC"}}`,
			reasoning: `""`, blocks: `[{"data":"AAEC","type":"redacted_thinking"}]`},
		{name: "Envoy with blocks of its own", message: `"reasoning_content":{"reasoningContent":{"reasoningText":{"text":"Check 13.","signature":"EqQB"}}},"thinking_blocks":[{"type":"thinking","thinking":"Check 13.","signature":"EqQB"}]`,
			reasoning: `"Check 13."`, blocks: `[{"type":"thinking","thinking":"Check 13.","signature":"EqQB"}]`},
		{name: "Envoy block beside a delta's members", message: `"reasoning_content":{"text":"x","reasoningContent":{"reasoningText":{"text":"y"}}}`,
			reasoning: `{"text":"x","reasoningContent":{"reasoningText":{"text":"y"}}}`},
		{name: "another member in the block", message: `"reasoning_content":{"reasoningContent":{"reasoningText":{"text":"y","tokens":3}}}`,
			reasoning: `{"reasoningContent":{"reasoningText":{"text":"y","tokens":3}}}`},
		{name: "claude-code-router thinking", message: `"thinking":{"content":"Check 13.","signature":"CiQB"}`,
			reasoning: `"Check 13."`, blocks: `[{"signature":"CiQB","type":"thinking"}]`},
		{name: "claude-code-router content alone", message: `"thinking":{"content":"Check 13."}`,
			reasoning: `"Check 13."`},
		{name: "claude-code-router placeholder", message: `"thinking":{"content":"(no content)","signature":"CiQB"}`,
			blocks: `[{"signature":"CiQB","type":"thinking"}]`},
		{name: "thinking beside a reasoning of its own", message: `"reasoning_content":"Own","thinking":{"content":"Other","signature":"CiQB"}`,
			reasoning: `"Own"`, thinking: `{"content":"Other","signature":"CiQB"}`},
		{name: "thinking null", message: `"thinking":null`, thinking: `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(`{"id":"m1","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop",` +
				`"message":{"role":"assistant","content":"No.",` + tc.message + `}}]}`)
			ev, ok := WholeChat(req, data)
			if !ok {
				t.Fatalf("WholeChat(%s) not a whole chat completion", data)
			}
			if got := ev.Chunk.Choices[0].Delta.JSON.ExtraFields[reasoningContent].Raw(); got != tc.reasoning {
				t.Errorf("WholeChat(%s): the delta's reasoning_content %q, want %q", tc.message, got, tc.reasoning)
			}
			res := new(openai.ChatCompletion)
			if err := json.Unmarshal(data, res); err != nil {
				t.Fatal(err)
			}
			if _, err := req.(chat).wholeEvent(res); err != nil {
				t.Fatal(err)
			}
			m := res.Choices[0].Message.JSON.ExtraFields
			got, blocks, th := m[reasoningContent].Raw(), m[thinkingBlocks].Raw(), m[thinking].Raw()
			if got != tc.reasoning || blocks != tc.blocks || th != tc.thinking {
				t.Errorf("message %s: reasoning_content %q, thinking_blocks %q, thinking %q; want %q, %q, %q",
					tc.message, got, blocks, th, tc.reasoning, tc.blocks, tc.thinking)
			}
		})
	}
}
