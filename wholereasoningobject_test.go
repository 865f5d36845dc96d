package tokenpace_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// wholeReasoningObjects are whole chat completions whose message carries
// its reasoning as a relay writes it, not as the string reasoning_content
// every other server sends, with the reasoning and thinking_blocks the
// caller should see.
var wholeReasoningObjects = []struct {
	name, message string
	reasoning     string // reasoning_content's JSON, "" for none
	blocks        string // thinking_blocks' JSON, "" for none
}{
	// Envoy AI Gateway's Claude on Vertex AI or Bedrock's InvokeModel
	// (envoyproxy/ai-gateway internal/translator/anthropic_helper.go,
	// messageToChatCompletion), and Bedrock's Converse up to v1.0.x
	// (openai_awsbedrock.go): the Bedrock reasoning block.
	{name: "Envoy AI Gateway thinking",
		message:   `"reasoning_content":{"reasoningContent":{"reasoningText":{"text":"Check small primes. 221 / 13 = 17.","signature":"EqQBCkYI"}}}`,
		reasoning: `"Check small primes. 221 / 13 = 17."`, blocks: `[{"signature":"EqQBCkYI","type":"thinking"}]`},
	{name: "Envoy AI Gateway redacted thinking",
		message:   `"reasoning_content":{"reasoningContent":{"redactedContent":"RXFRQkNr"}}`,
		reasoning: `""`, blocks: `[{"data":"RXFRQkNr","type":"redacted_thinking"}]`},
	// claude-code-router's Gemini provider (musistudio/llms
	// src/utils/gemini.util.ts, transformResponseOut): the thoughts beside
	// their signature, or its placeholder where Gemini signed no thought.
	{name: "claude-code-router thinking",
		message:   `"thinking":{"content":"Check small primes. 221 / 13 = 17.","signature":"CiQBcsjafE"}`,
		reasoning: `"Check small primes. 221 / 13 = 17."`, blocks: `[{"signature":"CiQBcsjafE","type":"thinking"}]`},
	{name: "claude-code-router placeholder",
		message: `"thinking":{"content":"(no content)","signature":"CiQBcsjafE"}`,
		blocks:  `[{"signature":"CiQBcsjafE","type":"thinking"}]`},
	// Portkey's gateway without strict OpenAI compliance (its thinking-mode
	// docs ask for it off): the provider's blocks in the message's
	// content_blocks, the reasoning nowhere else (Portkey-AI/gateway at
	// 669825c, src/providers/anthropic/chatComplete.ts,
	// getAnthropicChatCompleteResponseTransform: Claude's content but its
	// tool_use blocks; bedrock/chatComplete.ts, transformContentBlocks;
	// google/chatComplete.ts, GoogleChatCompleteResponseTransform: a
	// thought as a thinking block without signature;
	// openrouter/chatComplete.ts, OpenrouterChatCompleteResponseTransform:
	// OpenRouter's reasoning moved into a thinking block, its reasoning
	// field dropped).
	{name: "Portkey Claude thinking",
		message:   `"content_blocks":[{"type":"thinking","thinking":"Check small primes. 221 / 13 = 17.","signature":"EqQBCkYI"},{"type":"text","text":"No: 221 = 13 × 17."}]`,
		reasoning: `"Check small primes. 221 / 13 = 17."`, blocks: `[{"signature":"EqQBCkYI","type":"thinking"}]`},
	{name: "Portkey Claude redacted thinking",
		message: `"content_blocks":[{"type":"redacted_thinking","data":"RXFRQkNr"},{"type":"text","text":"No: 221 = 13 × 17."}]`,
		blocks:  `[{"data":"RXFRQkNr","type":"redacted_thinking"}]`},
	{name: "Portkey Gemini thought",
		message:   `"content_blocks":[{"type":"thinking","thinking":"Check small primes. 221 / 13 = 17."},{"type":"text","text":"No: 221 = 13 × 17."}]`,
		reasoning: `"Check small primes. 221 / 13 = 17."`},
	{name: "Portkey OpenRouter reasoning",
		message: `"content_blocks":[{"type":"thinking","thinking":"Check small primes. 221 / 13 = 17.","reasoning_details":[{"type":"reasoning.text","text":"Check small primes. 221 / 13 = 17.","format":"unknown","index":0}]},{"type":"text","text":"No: 221 = 13 × 17."}],` +
			`"reasoning_details":[{"type":"reasoning.text","text":"Check small primes. 221 / 13 = 17.","format":"unknown","index":0}]`,
		reasoning: `"Check small primes. 221 / 13 = 17."`},
	// A message with reasoning of its own beside content_blocks is left
	// as it came, as a delta is (see TestContentBlocksReasoning).
	{name: "content_blocks beside reasoning_content",
		message:   `"reasoning_content":"Own.","content_blocks":[{"type":"thinking","thinking":"Other."}]`,
		reasoning: `"Own."`},
}

// wholeReasoningBody returns a whole chat completion whose message holds
// the content "No: 221 = 13 × 17." and message, its reasoning's members.
func wholeReasoningBody(message string) string {
	return `{"id":"msg_01","object":"chat.completion","created":1767600000,"model":"claude-sonnet-4-5",` +
		`"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"No: 221 = 13 × 17.",` + message + `}}],` +
		`"usage":{"prompt_tokens":14,"completion_tokens":48,"total_tokens":62}}`
}

// TestNewRelayReasoningObject: a whole answer from a relay that writes
// the message's reasoning as an object of its own gives the caller of
// Client.New and Router.New that reasoning as the string
// reasoning_content and its signature or redacted thinking as a
// thinking_blocks entry, as a stream through the same relay gives them;
// before, reasoning_content held Envoy's object and claude-code-router's
// thinking was in no reasoning field at all.
func TestNewRelayReasoningObject(t *testing.T) {
	for _, tc := range wholeReasoningObjects {
		t.Run(tc.name, func(t *testing.T) {
			c := wholeReasoningClient(t, tc.message)
			r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, tokenpace.Route{Name: "relay", Model: "claude-sonnet-4-5"})
			if err != nil {
				t.Fatal(err)
			}
			for who, call := range map[string]func(...option.RequestOption) (*openai.ChatCompletion, error){
				"Client": func(o ...option.RequestOption) (*openai.ChatCompletion, error) {
					return c.New(context.Background(), chat("claude-sonnet-4-5", 2048), o...)
				},
				"Router": func(o ...option.RequestOption) (*openai.ChatCompletion, error) {
					return r.New(context.Background(), chat("claude-sonnet-4-5", 2048), o...)
				},
			} {
				res, err := call()
				if err != nil {
					t.Fatalf("%s: %v", who, err)
				}
				m := res.Choices[0].Message
				extra := m.JSON.ExtraFields
				if m.Content != "No: 221 = 13 × 17." || extra["reasoning_content"].Raw() != tc.reasoning || extra["thinking_blocks"].Raw() != tc.blocks {
					t.Errorf("%s: content %q, reasoning_content %q, thinking_blocks %q; want %q, %q, %q", who,
						m.Content, extra["reasoning_content"].Raw(), extra["thinking_blocks"].Raw(), "No: 221 = 13 × 17.", tc.reasoning, tc.blocks)
				}
				if f, ok := extra["thinking"]; ok {
					t.Errorf("%s: thinking %s left beside the reasoning", who, f.Raw())
				}
			}
		})
	}
}

// TestStreamGivenWholeRelayReasoningObject: the same whole answers given
// in place of a stream (see TestNewRelayReasoningObject) give the caller
// of NewStreaming the text and, in Accumulated(), the reasoning; before,
// Accumulated() held no reasoning.
func TestStreamGivenWholeRelayReasoningObject(t *testing.T) {
	for _, tc := range wholeReasoningObjects {
		t.Run(tc.name, func(t *testing.T) {
			c := wholeReasoningClient(t, tc.message)
			s := c.NewStreaming(context.Background(), chat("claude-sonnet-4-5", 2048))
			drain(t, s, 0)
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			want := ""
			if tc.reasoning != "" {
				_ = json.Unmarshal([]byte(tc.reasoning), &want)
			}
			var got string
			if f, ok := s.Accumulated().Choices[0].Message.JSON.ExtraFields["reasoning_content"]; ok {
				_ = json.Unmarshal([]byte(f.Raw()), &got)
			}
			if s.Text() != "No: 221 = 13 × 17." || got != want {
				t.Errorf("Text() %q, Accumulated()'s reasoning_content %q; want %q, %q", s.Text(), got, "No: 221 = 13 × 17.", want)
			}
		})
	}
}

// wholeReasoningClient returns a Client of a server that answers every
// request with a whole chat completion whose message has message's
// members (see wholeReasoningBody).
func wholeReasoningClient(t *testing.T, message string) *tokenpace.Client {
	t.Helper()
	url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, wholeReasoningBody(message))
	}))
	return tokenpace.NewClient(openaiClient(url, hc))
}
