package codec

import (
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3/packages/respjson"
)

// Reasoning as an object of text parts.
//
// ChatMock, which serves a ChatGPT plan's Codex backend as chat
// completions, started with --reasoning-compat o3 writes each piece of
// the reasoning summary as "reasoning": {"content": [{"type": "text",
// "text": …}]}, in a delta and in a whole answer's message alike
// (RayBytes/ChatMock chatmock/utils.py, sse_translate_chat;
// chatmock/reasoning.py, apply_reasoning_to_message). Read as it came,
// the object is no reasoning text: the reasoning is lost, and its chunks
// do not count as output, so the first token is taken to be the text's.

// reasoningParts rewrites a reasoning that came as such an object into
// the string reasoning every other server streams: its text parts one
// after the other. An object with any other member, or a part of another
// type, is left as it came. A delta of another server costs one map
// look-up, none when it has no extra field.
func reasoningParts(extra *map[string]respjson.Field) {
	raw, ok := objectField(*extra, reasoningName)
	if !ok {
		return
	}
	text, ok := partsText(raw)
	if !ok {
		return
	}
	js, _ := json.Marshal(text)
	(*extra)[reasoningName] = respjson.NewField(string(js))
}

// partsText returns the text of raw, an object whose one member is
// content, an array of text parts; ok is false for an object of another
// shape.
func partsText(raw string) (text string, ok bool) {
	var o struct {
		Content []struct{ Type, Text string }
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields() // another server's object, left as it came
	if dec.Decode(&o) != nil || o.Content == nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range o.Content {
		if p.Type != "text" {
			return "", false
		}
		b.WriteString(p.Text)
	}
	return b.String(), true
}
