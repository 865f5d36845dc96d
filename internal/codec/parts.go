package codec

import (
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// contentParts rewrites a delta whose content came as an array of parts,
// as Mistral streams its reasoning models' output (docs.mistral.ai,
// capabilities/reasoning): text parts ({"type":"text","text":...}) become
// its content, thinking parts ({"type":"thinking","thinking":[text
// parts]}, or a string) its reasoning_content, the field in which vLLM
// and DeepSeek stream reasoning; so do reasoning parts
// ({"type":"reasoning","summary":[{"type":"summary_text","text":...,
// "signature":...}]}), as Databricks streams Claude's thinking
// (block/goose#8077; BerriAI/litellm llms/databricks/chat,
// extract_reasoning_content); parts of other types, or of shapes unknown,
// are left out. openai-go would give the array's JSON as the text.
func contentParts(d *openai.ChatCompletionChunkChoiceDelta) {
	setParts(d.JSON.Content.Raw(), &d.Content, &d.JSON.ExtraFields)
}

// messageParts is contentParts for the message of a whole response.
func messageParts(m *openai.ChatCompletionMessage) {
	setParts(m.JSON.Content.Raw(), &m.Content, &m.JSON.ExtraFields)
}

// setParts sets content, and reasoning_content in extra, from raw, a
// content's JSON, when it is an array; it leaves them as they are
// otherwise.
func setParts(raw string, content *string, extra *map[string]respjson.Field) {
	if !strings.HasPrefix(raw, "[") {
		return // a string, as most servers send: nothing to allocate
	}
	var parts []json.RawMessage
	if json.Unmarshal([]byte(raw), &parts) != nil {
		return
	}
	var text, thinking strings.Builder
	for _, raw := range parts {
		var p struct {
			Type     string
			Text     json.RawMessage
			Thinking json.RawMessage
			Summary  json.RawMessage
		}
		if json.Unmarshal(raw, &p) != nil {
			continue
		}
		switch p.Type {
		case "text":
			text.WriteString(stringOf(p.Text))
		case "thinking":
			innerText(&thinking, p.Thinking, "text")
		case "reasoning":
			innerText(&thinking, p.Summary, "summary_text")
		}
	}
	*content = text.String()
	if thinking.Len() > 0 {
		b, _ := json.Marshal(thinking.String())
		if *extra == nil {
			*extra = map[string]respjson.Field{}
		}
		(*extra)["reasoning_content"] = respjson.NewField(string(b))
	}
}

// innerText writes to b the text raw holds: a string, or an array of
// parts whose parts of type kind each hold a text.
func innerText(b *strings.Builder, raw json.RawMessage, kind string) {
	var inner []struct {
		Type string
		Text json.RawMessage
	}
	if json.Unmarshal(raw, &inner) != nil {
		b.WriteString(stringOf(raw))
		return
	}
	for _, t := range inner {
		if t.Type == kind {
			b.WriteString(stringOf(t.Text))
		}
	}
}

// chatShapedText sets the text of a completions choice that has none
// from the chat message or delta it holds instead: Mistral's and
// Codestral's fill-in-the-middle endpoint (/v1/fim/completions), which
// callers reach through the completions API, answers in the shape of a
// chat completion, "message" or, streamed, "delta" with its content
// (Mistral's OpenAPI FimCompletionResponse): openai-go reads no text.
func chatShapedText(ch *openai.CompletionChoice) {
	if ch.JSON.Text.Valid() {
		return
	}
	for _, key := range [...]string{"delta", "message"} {
		f, ok := ch.JSON.ExtraFields[key]
		if !ok {
			continue
		}
		var m struct{ Content json.RawMessage }
		if json.Unmarshal([]byte(f.Raw()), &m) != nil {
			continue
		}
		var extra map[string]respjson.Field
		ch.Text = stringOf(m.Content)
		setParts(string(m.Content), &ch.Text, &extra)
		return
	}
}

// stringOf returns the string raw holds, or "" when it holds none.
func stringOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}
