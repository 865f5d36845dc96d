package codec

import (
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3/packages/respjson"
)

// thinking is the delta field in which musistudio/llms, the provider
// layer of claude-code-router, writes the reasoning of the chat chunks it
// makes from another provider's stream: {"content": text} for each piece,
// and {"signature": s} once the reasoning ends. From DeepSeek's and
// OpenRouter's streams it writes, at the first text, one chunk more whose
// thinking holds the whole reasoning again beside a signature of its own
// (src/transformer/deepseek.transformer.ts and openrouter.transformer.ts,
// transformResponseOut); from Gemini's, the signature alone
// (src/utils/gemini.util.ts). A whole answer it makes from Gemini's has
// the same field in its message: {"content": the thoughts,
// "signature": s}, or the placeholder (see noThinking) as the content when
// Gemini signed no thought (gemini.util.ts, transformResponseOut,
// non-streamed).
const thinking = "thinking"

// noThinking is the content musistudio/llms gives a thinking object of
// its own making, no model's text: from Gemini's stream, where a
// thoughtSignature came with no thought text before it, it writes a
// piece of this content ahead of the signature (src/utils/gemini.util.ts,
// transformResponseOut), so that its Anthropic side has a thinking block
// to sign.
const noThinking = "(no content)"

// thinkingObject rewrites a thinking object into the shape every other
// server streams: its content as the string reasoning_content, its
// signature as a thinking_blocks entry. In a delta (whole false), the
// content of an object that carries a signature is the reasoning already
// streamed, restated, and is dropped; in a whole answer's message (whole
// true) it is the reasoning itself, as musistudio/llms writes Gemini's
// thoughts and their signature in one object there
// (src/utils/gemini.util.ts, transformResponseOut, non-streamed), and is
// kept. A piece that is the relay's placeholder (see noThinking) is
// dropped either way. An object with any other member, or extra fields
// that hold a reasoning_content of their own, are left as they came. A
// delta of another server costs one map look-up, none when it has no
// extra field.
func thinkingObject(extra *map[string]respjson.Field, whole bool) {
	raw, ok := objectField(*extra, thinking)
	if !ok {
		return
	}
	if _, ok := (*extra)[reasoningContent]; ok {
		return
	}
	var o struct {
		Content   *string
		Signature string
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if dec.Decode(&o) != nil || (o.Content == nil && o.Signature == "") {
		return
	}
	delete(*extra, thinking)
	if o.Content != nil && *o.Content != noThinking && (o.Signature == "" || whole) {
		js, _ := json.Marshal(*o.Content)
		(*extra)[reasoningContent] = respjson.NewField(string(js))
	}
	if o.Signature == "" {
		return
	}
	if _, ok := (*extra)[thinkingBlocks]; ok {
		return
	}
	b, _ := json.Marshal([]map[string]string{{"type": "thinking", "signature": o.Signature}})
	(*extra)[thinkingBlocks] = respjson.NewField(string(b))
}
