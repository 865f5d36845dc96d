package codec

import (
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// thinkingBlocks is the field in which LiteLLM, and Envoy AI Gateway
// since v1.1.0, give a thinking block's signature and redacted thinking
// beside the reasoning text: an array of {"type":"thinking",
// "signature":...} and {"type":"redacted_thinking","data":...}.
const thinkingBlocks = "thinking_blocks"

// deltaReasoningObject is reasoningObject for a delta, after
// thinkingObject, then reasoningParts and contentBlocksReasoning.
func deltaReasoningObject(d *openai.ChatCompletionChunkChoiceDelta) {
	thinkingObject(&d.JSON.ExtraFields, false)
	reasoningObject(&d.JSON.ExtraFields)
	reasoningParts(&d.JSON.ExtraFields)
	contentBlocksReasoning(&d.JSON.ExtraFields)
}

// messageReasoningObject is deltaReasoningObject for the message of a
// whole answer, whose thinking object holds the reasoning itself beside
// its signature (see thinkingObject), and whose content_blocks are whole
// blocks (see messageContentBlocksReasoning).
func messageReasoningObject(m *openai.ChatCompletionMessage) {
	thinkingObject(&m.JSON.ExtraFields, true)
	reasoningObject(&m.JSON.ExtraFields)
	reasoningParts(&m.JSON.ExtraFields)
	messageContentBlocksReasoning(m)
}

// reasoningObject rewrites a reasoning_content that came as an object
// into the shape every other server streams: its text as the string
// reasoning_content, its signature or redacted thinking as a
// thinking_blocks entry, as Envoy AI Gateway writes them since v1.1.0.
// Envoy AI Gateway up to v1.0.x streamed Claude's thinking on Bedrock,
// and Gemini's thought summaries and signatures on Vertex AI, as
// {"text":...}, {"signature":...} or {"redactedContent":...}
// (envoyproxy/ai-gateway v1.0.0 internal/apischema/openai/openai.go,
// StreamReasoningContent; #2318, fixed by #2319): read as it came, the
// text is lost and a signature alone counts as output. Its whole answers
// hold Bedrock's reasoning block instead, {"reasoningContent":
// {"reasoningText":{"text":...,"signature":...}}} or {"reasoningContent":
// {"redactedContent":...}}: Claude's on Vertex AI and on Bedrock's
// InvokeModel still in v1.1.0 (internal/translator/anthropic_helper.go,
// messageToChatCompletion), Bedrock's Converse up to v1.0.x
// (openai_awsbedrock.go). An object with any other member is no Envoy's
// (a video relay streams its progress as {"stage","status","progress"})
// and is left as it came. A delta of another server costs one map
// look-up, none when it has no extra field.
func reasoningObject(extra *map[string]respjson.Field) {
	raw, ok := objectField(*extra, reasoningContent)
	if !ok {
		return
	}
	text, signature, redacted, ok := envoyReasoning(raw)
	if !ok {
		return
	}
	js, _ := json.Marshal(text)
	(*extra)[reasoningContent] = respjson.NewField(string(js))
	if _, ok := (*extra)[thinkingBlocks]; ok {
		return
	}
	var block any
	switch {
	case signature != "":
		block = map[string]string{"type": "thinking", "signature": signature}
	case redacted != "":
		block = map[string]string{"type": "redacted_thinking", "data": redacted}
	default:
		return
	}
	b, _ := json.Marshal([]any{block})
	(*extra)[thinkingBlocks] = respjson.NewField(string(b))
}

// envoyReasoning returns the text, signature and redacted thinking of
// raw, a reasoning_content object as Envoy AI Gateway writes it in a delta
// or in a whole answer's message (see reasoningObject); ok is false for
// an object of another shape, or of both.
func envoyReasoning(raw string) (text, signature, redacted string, ok bool) {
	var o struct {
		Text            string
		Signature       string
		RedactedContent json.RawMessage `json:"redactedContent"`
		Block           *struct {
			ReasoningText *struct {
				Text      string
				Signature string
			} `json:"reasoningText"`
			RedactedContent json.RawMessage `json:"redactedContent"`
		} `json:"reasoningContent"`
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields() // another server's object, left as it came
	if dec.Decode(&o) != nil {
		return "", "", "", false
	}
	if b := o.Block; b != nil {
		if o.Text != "" || o.Signature != "" || len(o.RedactedContent) > 0 {
			return "", "", "", false
		}
		if rt := b.ReasoningText; rt != nil {
			o.Text, o.Signature = rt.Text, rt.Signature
		}
		o.RedactedContent = b.RedactedContent
	}
	return o.Text, o.Signature, stringOf(o.RedactedContent), true
}

// objectField returns the raw JSON of extra's member name when it is an
// object, as the reasoning of a relay that sends it in a shape of its own
// is (reasoningObject, reasoningParts, thinkingObject); ok is false for
// a chunk without that member, or with a string or any other value, the
// look-up a delta of another server costs (none without extra fields).
func objectField(extra map[string]respjson.Field, name string) (raw string, ok bool) {
	if len(extra) == 0 {
		return "", false
	}
	f, ok := extra[name]
	if !ok || !strings.HasPrefix(f.Raw(), "{") {
		return "", false
	}
	return f.Raw(), true
}
