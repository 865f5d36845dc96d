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
// parts]}) its reasoning_content, the field in which vLLM and DeepSeek
// stream reasoning; parts of other types are left out. openai-go would
// give the array's JSON as the text. It reports false when the array is
// not one of parts.
func contentParts(d *openai.ChatCompletionChunkChoiceDelta) bool {
	return setParts(d.JSON.Content.Raw(), &d.Content, &d.JSON.ExtraFields)
}

// messageParts is contentParts for the message of a whole response.
func messageParts(m *openai.ChatCompletionMessage) bool {
	return setParts(m.JSON.Content.Raw(), &m.Content, &m.JSON.ExtraFields)
}

// setParts sets content, and reasoning_content in extra, from raw, a
// content's JSON, when it is an array of parts; it leaves them as they
// are otherwise.
func setParts(raw string, content *string, extra *map[string]respjson.Field) bool {
	if !strings.HasPrefix(raw, "[") {
		return true
	}
	var parts []struct {
		Type     string
		Text     string
		Thinking []struct{ Type, Text string }
	}
	if json.Unmarshal([]byte(raw), &parts) != nil {
		return false
	}
	var text, thinking strings.Builder
	for _, p := range parts {
		switch p.Type {
		case "text":
			text.WriteString(p.Text)
		case "thinking":
			for _, t := range p.Thinking {
				if t.Type == "text" {
					thinking.WriteString(t.Text)
				}
			}
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
	return true
}
