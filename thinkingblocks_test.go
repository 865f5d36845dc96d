package tokenpace_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tokenpace/tokenpace"
)

// claudeThinking and claudeSignature are the thinking block Claude signs
// before its tool call, and its signature, in the relays' emulators.
const (
	claudeThinking  = "I need the weather in Paris."
	claudeSignature = "EqQBCkYIBxgCKkB3c2lnbmF0dXJl"
)

// claudeRefusal is Anthropic's 400 for a tool call's next turn whose
// assistant message does not start with the thinking block, as LiteLLM
// passes it on (BerriAI/litellm#15601; anomalyco/opencode#3077).
const claudeRefusal = `{"error":{"message":"litellm.BadRequestError: AnthropicException - b'{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.1.content.0.type: Expected ` + "`thinking` or `redacted_thinking`, but found `tool_use`" + `. When ` + "`thinking`" + ` is enabled, a final ` + "`assistant`" + ` message must start with a thinking block.\"}}'","type":null,"param":null,"code":"400"}}`

// claudeSigned is the thinking block Claude signs before its tool call.
var claudeSigned = []map[string]string{{"type": "thinking", "thinking": claudeThinking, "signature": claudeSignature}}

// claudeRelay starts a relay of Claude with extended thinking that
// builds an assistant message's Anthropic blocks from field (blocks
// returns them), and answers as deltas writes them: a first turn thinks,
// signs its thinking (the blocks signed, as Claude wrote them) and calls
// get_weather; a later request whose assistant message with the call does
// not start with the signed blocks, whole, is refused with Anthropic's
// 400, and one that does is answered with text.
func claudeRelay(t *testing.T, signed []map[string]string, blocks func(m map[string]any) []map[string]any, deltas []string, whole string) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var raw struct {
			Stream   bool             `json:"stream"`
			Messages []map[string]any `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		answered := false
		for _, m := range raw.Messages {
			if m["role"] != "assistant" || m["tool_calls"] == nil {
				continue
			}
			answered = true
			if !startsWith(blocks(m), signed) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, claudeRefusal)
				return
			}
		}
		if answered {
			if !raw.Stream {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"id":"c-2","object":"chat.completion","created":1,"model":"claude-sonnet-4-5","choices":[{"index":0,"message":{"role":"assistant","content":"Sunny in Paris."},"finish_reason":"stop"}]}`)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"id\":\"c-2\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"claude-sonnet-4-5\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Sunny in Paris.\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
			return
		}
		if !raw.Stream {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"c-1","object":"chat.completion","created":1,"model":"claude-sonnet-4-5","choices":[{"index":0,"message":{"role":"assistant",%s,"tool_calls":[{"id":"toolu_01","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}`, whole)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, d := range deltas {
			fmt.Fprintf(w, "data: {\"id\":\"c-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"claude-sonnet-4-5\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":null}]}\n\n", d)
		}
		fmt.Fprint(w, "data: {\"id\":\"c-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"claude-sonnet-4-5\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(ts.Close)
	return ts
}

// startsWith reports whether blocks start with want and with no other
// thinking block: the run of thinking and redacted_thinking blocks at
// their start is want's, each block's members exactly as want's, as
// Claude checks the blocks it signed.
func startsWith(blocks []map[string]any, want []map[string]string) bool {
	n := 0
	for n < len(blocks) && (blocks[n]["type"] == "thinking" || blocks[n]["type"] == "redacted_thinking") {
		n++
	}
	if n != len(want) {
		return false
	}
	for i, w := range want {
		if len(blocks[i]) != len(w) {
			return false
		}
		for k, v := range w {
			if blocks[i][k] != v {
				return false
			}
		}
	}
	return true
}

// listOf returns m[name] as a list of objects.
func listOf(m map[string]any, name string) []map[string]any {
	var out []map[string]any
	l, _ := m[name].([]any)
	for _, v := range l {
		if o, ok := v.(map[string]any); ok {
			out = append(out, o)
		}
	}
	return out
}

// liteLLMRelay is claudeRelay as LiteLLM is: the assistant turn's
// blocks built from its thinking_blocks, streamed in pieces, the
// signature last.
func liteLLMRelay(t *testing.T) *httptest.Server {
	piece := func(s string) string {
		return `{"reasoning_content":"` + s + `","thinking_blocks":[{"type":"thinking","thinking":"` + s + `","signature":null}],"content":""}`
	}
	return claudeRelay(t, claudeSigned, func(m map[string]any) []map[string]any { return listOf(m, "thinking_blocks") }, []string{
		`{"role":"assistant","content":""}`,
		piece("I need the weather"), piece(" in Paris."),
		`{"reasoning_content":"","thinking_blocks":[{"type":"thinking","thinking":"","signature":"` + claudeSignature + `"}],"content":""}`,
		`{"content":"",` + claudeCall + `}`,
	}, `"content":"","reasoning_content":"`+claudeThinking+`","thinking_blocks":[{"type":"thinking","thinking":"`+claudeThinking+`","signature":"`+claudeSignature+`"}]`)
}

// claudeCall is the tool call both relays stream after the thinking.
const claudeCall = `"tool_calls":[{"index":0,"id":"toolu_01","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]`

// TestThinkingBlocksGivenBack checks the tool agent's conversation with
// Claude's extended thinking through LiteLLM, which builds the assistant
// turn's Anthropic blocks from its thinking_blocks
// (litellm/litellm_core_utils/prompt_templates/factory.py,
// anthropic_messages_pt) and streams them in pieces, the signature last
// (litellm/llms/anthropic/chat/handler.py): the turn built with ToParam,
// which drops thinking_blocks, gets the signed block back whole and the
// second request is answered; through openai-go alone it is refused with
// Anthropic's 400.
func TestThinkingBlocksGivenBack(t *testing.T) {
	givenBackTurns(t, liteLLMRelay(t))
}

// givenBackTurns runs the tool agent's two turns against the Claude relay
// ts streamed and whole through a Client, streamed through a Router, and
// through openai-go alone, which is refused.
func givenBackTurns(t *testing.T, ts *httptest.Server) {
	t.Helper()
	client := func() *tokenpace.Client { return tokenpace.NewClient(openaiClient(ts.URL, ts.Client())) }
	r, err := tokenpace.NewRouter(client(), tokenpace.Policy{}, tokenpace.Route{Name: "litellm"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("streamed", func(t *testing.T) { streamedTurns(t, client().NewStreaming, 1, "Sunny in Paris.") })
	t.Run("whole", func(t *testing.T) { wholeTurns(t, client(), "Sunny in Paris.") })
	t.Run("router", func(t *testing.T) { streamedTurns(t, r.NewStreaming, 1, "Sunny in Paris.") })
	t.Run("openai-go alone", func(t *testing.T) { refusedAlone(t, ts) })
}

// TestContentBlocksGivenBack is TestThinkingBlocksGivenBack through
// Portkey's gateway with strict OpenAI compliance off, which builds the
// assistant turn's Anthropic blocks from its content_blocks, in place of
// its content (src/providers/anthropic/chatComplete.ts,
// transformAssistantMessage), and streams each Anthropic block's deltas
// as content_blocks of its index, the type left out (getAnthropicStreamChunkTransform).
// The blocks given back hold the turn's text too, as the caller's
// content: Portkey reads no content beside them.
func TestContentBlocksGivenBack(t *testing.T) {
	var gotText string
	blocks := func(m map[string]any) []map[string]any {
		b := listOf(m, "content_blocks")
		gotText = ""
		for _, x := range b {
			if x["type"] == "text" {
				gotText, _ = x["text"].(string)
			}
		}
		return b
	}
	block := func(i int, delta string) string {
		return fmt.Sprintf(`{"content_blocks":[{"index":%d,"delta":%s}]}`, i, delta)
	}
	ts := claudeRelay(t, claudeSigned, blocks, []string{
		`{"role":"assistant","content":""}`,
		block(0, `{"thinking":"","signature":""}`),
		block(0, `{"thinking":"I need the weather"}`), block(0, `{"thinking":" in Paris."}`),
		block(0, `{"signature":"`+claudeSignature+`"}`),
		block(0, `{}`),
		block(1, `{"text":""}`),
		`{"content":"Checking.","content_blocks":[{"index":1,"delta":{"text":"Checking."}}]}`,
		block(1, `{}`),
		`{` + claudeCall + `}`,
	}, `"content":"Checking.","content_blocks":[{"type":"thinking","thinking":"`+claudeThinking+`","signature":"`+claudeSignature+`"},{"type":"text","text":"Checking."}]`)
	client := func() *tokenpace.Client { return tokenpace.NewClient(openaiClient(ts.URL, ts.Client())) }
	t.Run("streamed", func(t *testing.T) {
		streamedTurns(t, client().NewStreaming, 1, "Sunny in Paris.")
		if gotText != "Checking." {
			t.Errorf("the text given back in content_blocks = %q, want the turn's content %q", gotText, "Checking.")
		}
	})
	t.Run("whole", func(t *testing.T) {
		wholeTurns(t, client(), "Sunny in Paris.")
		if gotText != "Checking." {
			t.Errorf("the text given back in content_blocks = %q, want the turn's content %q", gotText, "Checking.")
		}
	})
	t.Run("openai-go alone", func(t *testing.T) { refusedAlone(t, ts) })
}

// claudeRedacted is a redacted thinking block's data, as Claude encrypts
// it.
const claudeRedacted = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw"

// TestRedactedThinkingGivenBack is TestThinkingBlocksGivenBack for a
// turn whose thinking begins redacted. LiteLLM streams a
// redacted_thinking block whole, at its content_block_start, as a delta of
// thinking_blocks (and provider_specific_fields) alone: no
// reasoning_content beside it, since only a content_block_delta gets one
// (litellm/llms/anthropic/chat/handler.py, chunk_parser and
// _handle_redacted_thinking_content). Claude wants the redacted block back
// before the thinking that follows it, or alone when all its thinking was
// redacted. Portkey's gateway (strict OpenAI compliance off) streams it as
// a content_blocks entry of its index whose delta holds only its data
// (src/providers/anthropic/chatComplete.ts, getAnthropicStreamChunkTransform).
func TestRedactedThinkingGivenBack(t *testing.T) {
	redacted := `{"type":"redacted_thinking","data":"` + claudeRedacted + `"}`
	piece := func(s string) string {
		return `{"reasoning_content":"` + s + `","thinking_blocks":[{"type":"thinking","thinking":"` + s + `","signature":null}],"content":""}`
	}
	for _, tc := range []struct {
		name   string
		field  string // where the relay reads the blocks back: thinking_blocks unless named
		signed []map[string]string
		deltas []string
		whole  string
	}{{
		name:   "redacted alone",
		signed: []map[string]string{{"type": "redacted_thinking", "data": claudeRedacted}},
		deltas: []string{
			`{"role":"assistant","content":""}`,
			`{"thinking_blocks":[` + redacted + `],"provider_specific_fields":{"thinking_blocks":[` + redacted + `]},"content":""}`,
			`{"content":"",` + claudeCall + `}`,
		},
		whole: `"content":"","thinking_blocks":[` + redacted + `]`,
	}, {
		name:   "redacted, then thinking",
		signed: append([]map[string]string{{"type": "redacted_thinking", "data": claudeRedacted}}, claudeSigned...),
		deltas: []string{
			`{"role":"assistant","content":""}`,
			`{"thinking_blocks":[` + redacted + `],"provider_specific_fields":{"thinking_blocks":[` + redacted + `]},"content":""}`,
			piece("I need the weather"), piece(" in Paris."),
			`{"reasoning_content":"","thinking_blocks":[{"type":"thinking","thinking":"","signature":"` + claudeSignature + `"}],"content":""}`,
			`{"content":"",` + claudeCall + `}`,
		},
		whole: `"content":"","reasoning_content":"` + claudeThinking + `","thinking_blocks":[` + redacted + `,{"type":"thinking","thinking":"` + claudeThinking + `","signature":"` + claudeSignature + `"}]`,
	}, {
		name:   "Portkey, redacted alone",
		field:  "content_blocks",
		signed: []map[string]string{{"type": "redacted_thinking", "data": claudeRedacted}},
		deltas: []string{
			`{"role":"assistant","content":""}`,
			`{"content_blocks":[{"index":0,"delta":{"data":"` + claudeRedacted + `"}}]}`,
			`{"content_blocks":[{"index":0,"delta":{}}]}`,
			`{` + claudeCall + `}`,
		},
		whole: `"content":"","content_blocks":[` + redacted + `]`,
	}} {
		field := tc.field
		if field == "" {
			field = "thinking_blocks"
		}
		t.Run(tc.name, func(t *testing.T) {
			givenBackTurns(t, claudeRelay(t, tc.signed, func(m map[string]any) []map[string]any { return listOf(m, field) }, tc.deltas, tc.whole))
		})
	}
}

// TestRedactedThinkingContinued is TestRedactedThinkingGivenBack under a
// Router with Continue: LiteLLM's stream breaks after Claude's redacted
// block and some text, and the continuation, asked with a user message
// after the text so far, is a turn of its own that Claude begins with a
// redacted block again and ends with the call. The next turn gives back
// the continuation's block, the turn that made the call, as Claude wants
// it: the continuation's stream, like any, begins its turn at a block
// that comes before any reasoning.
func TestRedactedThinkingContinued(t *testing.T) {
	const continued = "Z2l2ZW4gYmFjayBhZnRlciBhIGNvbnRpbnVhdGlvbg"
	chunk := func(w http.ResponseWriter, delta, finish string) {
		fmt.Fprintf(w, "data: {\"id\":\"c-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"claude-sonnet-4-5\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", delta, finish)
	}
	redacted := func(data string) string {
		b := `[{"type":"redacted_thinking","data":"` + data + `"}]`
		return `{"thinking_blocks":` + b + `,"provider_specific_fields":{"thinking_blocks":` + b + `},"content":""}`
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var raw struct {
			Messages []map[string]any `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		last := raw.Messages[len(raw.Messages)-1]
		w.Header().Set("Content-Type", "text/event-stream")
		switch {
		case last["role"] == "tool":
			if !startsWith(listOf(raw.Messages[len(raw.Messages)-2], "thinking_blocks"), []map[string]string{{"type": "redacted_thinking", "data": continued}}) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, claudeRefusal)
				return
			}
			chunk(w, `{"role":"assistant","content":"Sunny in Paris."}`, `"stop"`)
			fmt.Fprint(w, "data: [DONE]\n\n")
		case len(raw.Messages) > 1: // the continuation: a turn of its own
			chunk(w, `{"role":"assistant","content":""}`, "null")
			chunk(w, redacted(continued), "null")
			chunk(w, `{"content":" the weather."}`, "null")
			chunk(w, `{"content":"",`+claudeCall+`}`, "null")
			chunk(w, `{}`, `"tool_calls"`)
			fmt.Fprint(w, "data: [DONE]\n\n")
		default: // cut after the redacted block and some text
			chunk(w, `{"role":"assistant","content":""}`, "null")
			chunk(w, redacted(claudeRedacted), "null")
			chunk(w, `{"content":"Checking"}`, "null")
		}
	}))
	t.Cleanup(ts.Close)
	c := tokenpace.NewClient(openaiClient(ts.URL, ts.Client()))
	r, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true}, tokenpace.Route{Name: "litellm"}, tokenpace.Route{Name: "litellm-2"})
	if err != nil {
		t.Fatal(err)
	}
	streamedTurns(t, r.NewStreaming, 1, "Sunny in Paris.")
}
