package codec

import (
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// contentBlocks is the delta field in which Portkey's gateway, with strict
// OpenAI compliance off (the x-portkey-strict-open-ai-compliance: false
// header its thinking-mode docs ask for), streams the blocks of a
// provider's answer: an array of {"index": n, "delta": {...}}, where a
// delta holds "thinking" (a piece of the reasoning), "signature" (the
// signature of a thinking block), "data" (redacted thinking) or "text" (a
// piece of the text, which the delta's content holds as well). It is the
// only place the reasoning comes: Claude's on Anthropic, Vertex AI and
// Bedrock, and Gemini's thoughts (Portkey-AI/gateway
// src/providers/anthropic/chatComplete.ts,
// getAnthropicStreamChunkTransform; bedrock/chatComplete.ts,
// BedrockChatCompleteStreamChunkTransform; google/chatComplete.ts).
const contentBlocks = "content_blocks"

// contentBlocksReasoning gives a delta's content_blocks reasoning the
// shape every other server streams: the thinking pieces, joined, as the
// string reasoning_content, and a signature or redacted thinking as a
// thinking_blocks entry, as reasoningObject writes Envoy's. Read as it
// came, the reasoning is lost and its chunks are no output: TTFT waits
// for the first text, and a TTFT budget cuts a model that is thinking.
// The content_blocks field is kept as it came. A delta that holds
// reasoning of its own, in reasoning_content or reasoning, or
// content_blocks of another shape, is left as it came: Portkey's relay of
// OpenRouter copies the delta's reasoning into content_blocks beside it
// (src/providers/openrouter/chatComplete.ts,
// OpenrouterChatCompleteStreamChunkTransform), and read again it would be
// doubled and moved to a field OpenRouter never sent. A delta of another
// server costs one map look-up, none when it has no extra field.
func contentBlocksReasoning(extra *map[string]respjson.Field) {
	readContentBlocks(extra, false)
}

// messageContentBlocksReasoning is contentBlocksReasoning for the message
// of a whole answer, whose content_blocks are the provider's blocks
// themselves, {"type": "thinking", "thinking", "signature"}, {"type":
// "redacted_thinking", "data"}, {"type": "text", "text"}, not their
// deltas: Claude's on Anthropic (Portkey-AI/gateway
// src/providers/anthropic/chatComplete.ts,
// getAnthropicChatCompleteResponseTransform) and Bedrock
// (bedrock/chatComplete.ts, transformContentBlocks), Gemini's thoughts
// without signature (google/chatComplete.ts,
// GoogleChatCompleteResponseTransform), and OpenRouter's reasoning, whose
// own field the relay drops from a whole answer
// (openrouter/chatComplete.ts, OpenrouterChatCompleteResponseTransform).
// Read as they came, a whole answer's caller got no reasoning where a
// stream's caller of the same relay got it.
func messageContentBlocksReasoning(m *openai.ChatCompletionMessage) {
	readContentBlocks(&m.JSON.ExtraFields, true)
}

// contentBlock is one entry of content_blocks: a whole answer's block
// (whole) holds its members itself, a stream's in its delta.
type contentBlock struct {
	Type      string
	Thinking  string
	Signature string
	Data      string
	Delta     struct {
		Thinking  string
		Signature string
		Data      string
	}
}

// readContentBlocks rewrites the content_blocks of extra, a delta's or
// (whole) a whole answer's message's, as contentBlocksReasoning says.
func readContentBlocks(extra *map[string]respjson.Field, whole bool) {
	if len(*extra) == 0 {
		return
	}
	f, ok := (*extra)[contentBlocks]
	if !ok || !strings.HasPrefix(f.Raw(), "[") {
		return
	}
	for _, name := range reasoningFields {
		if _, ok := (*extra)[name]; ok {
			return
		}
	}
	var blocks []contentBlock
	if json.Unmarshal([]byte(f.Raw()), &blocks) != nil {
		return
	}
	var text strings.Builder
	var signed []map[string]string
	for _, b := range blocks {
		thinking, signature, data := b.Delta.Thinking, b.Delta.Signature, b.Delta.Data
		if whole {
			switch b.Type {
			case "thinking":
				thinking, signature, data = b.Thinking, b.Signature, ""
			case "redacted_thinking":
				thinking, signature, data = "", "", b.Data
			default:
				continue
			}
		}
		text.WriteString(thinking)
		switch {
		case signature != "":
			signed = append(signed, map[string]string{"type": "thinking", "signature": signature})
		case data != "":
			signed = append(signed, map[string]string{"type": "redacted_thinking", "data": data})
		}
	}
	if text.Len() > 0 {
		js, _ := json.Marshal(text.String())
		(*extra)[reasoningContent] = respjson.NewField(string(js))
	}
	if _, ok := (*extra)[thinkingBlocks]; ok || len(signed) == 0 {
		return
	}
	js, _ := json.Marshal(signed)
	(*extra)[thinkingBlocks] = respjson.NewField(string(js))
}
