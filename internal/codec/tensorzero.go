package codec

import (
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// tensorZeroExtra is the field in which TensorZero's OpenAI-compatible
// endpoint gives the content blocks OpenAI's message has no field for: a
// delta's, or a whole answer's message's, array of blocks, each
// {"type":"thought","insert_index":…,"id":…,"text":…,"signature":…,
// "summary_id":…,"summary_text":…} or {"type":"unknown",…}. A reasoning
// model's thinking comes only there, never in content or
// reasoning_content (tensorzero/tensorzero
// crates/tensorzero-core/src/endpoints/openai_compatible/types/streaming.rs,
// process_chat_content_chunk; chat_completions.rs for a whole answer).
const tensorZeroExtra = "tensorzero_extra_content"

// deltaThoughts is thoughtsInto for a delta.
func deltaThoughts(d *openai.ChatCompletionChunkChoiceDelta) {
	thoughtsInto(&d.JSON.ExtraFields)
}

// messageThoughts is thoughtsInto for the message of a whole answer.
func messageThoughts(m *openai.ChatCompletionMessage) {
	thoughtsInto(&m.JSON.ExtraFields)
}

// thoughtsInto sets reasoning_content in extra, a delta's or a message's
// extra fields, to the text of the thought blocks of its
// tensorzero_extra_content (a thought's text, or, from a provider that
// sends only a summary, its summary_text), where it has no
// reasoning_content of its own. A chunk of another server has no such
// field and costs one map look-up, none when it has no extra field.
func thoughtsInto(extra *map[string]respjson.Field) {
	if len(*extra) == 0 {
		return
	}
	f, ok := (*extra)[tensorZeroExtra]
	if !ok {
		return
	}
	if _, ok := (*extra)[reasoningContent]; ok {
		return
	}
	var blocks []struct {
		Type        string
		Text        json.RawMessage
		SummaryText json.RawMessage `json:"summary_text"`
	}
	if json.Unmarshal([]byte(f.Raw()), &blocks) != nil {
		return
	}
	var b strings.Builder
	for _, t := range blocks {
		if t.Type != "thought" {
			continue
		}
		if s := stringOf(t.Text); s != "" {
			b.WriteString(s)
		} else {
			b.WriteString(stringOf(t.SummaryText))
		}
	}
	if b.Len() == 0 {
		return
	}
	raw, _ := json.Marshal(b.String())
	(*extra)[reasoningContent] = respjson.NewField(string(raw))
}
