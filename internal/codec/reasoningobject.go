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
// thinkingObject.
func deltaReasoningObject(d *openai.ChatCompletionChunkChoiceDelta) {
	thinkingObject(&d.JSON.ExtraFields)
	reasoningObject(&d.JSON.ExtraFields)
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
// text is lost and a signature alone counts as output. An object with
// any other member is no Envoy's (a video relay streams its progress as
// {"stage","status","progress"}) and is left as it came. A delta of
// another server costs one map look-up, none when it has no extra field.
func reasoningObject(extra *map[string]respjson.Field) {
	if len(*extra) == 0 {
		return
	}
	f, ok := (*extra)[reasoningContent]
	if !ok || !strings.HasPrefix(f.Raw(), "{") {
		return
	}
	var o struct {
		Text            string
		Signature       string
		RedactedContent json.RawMessage `json:"redactedContent"`
	}
	dec := json.NewDecoder(strings.NewReader(f.Raw()))
	dec.DisallowUnknownFields() // another server's object, left as it came
	if dec.Decode(&o) != nil {
		return
	}
	raw, _ := json.Marshal(o.Text)
	(*extra)[reasoningContent] = respjson.NewField(string(raw))
	if _, ok := (*extra)[thinkingBlocks]; ok {
		return
	}
	var block any
	switch {
	case o.Signature != "":
		block = map[string]string{"type": "thinking", "signature": o.Signature}
	case stringOf(o.RedactedContent) != "":
		block = map[string]string{"type": "redacted_thinking", "data": stringOf(o.RedactedContent)}
	default:
		return
	}
	b, _ := json.Marshal([]any{block})
	(*extra)[thinkingBlocks] = respjson.NewField(string(b))
}
