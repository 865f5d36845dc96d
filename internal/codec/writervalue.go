package codec

import (
	"bytes"
	"encoding/json"
)

// Writer's own text-generation format.
//
// Writer's /v1/completions streams each event as {"value": <text>}, the
// first value "", with no choices, no finish reason, no usage and no
// [DONE] (dev.writer.com/home/streaming; writer/writer-python
// src/writerai/types/completion_chunk.py, CompletionChunk). openai-go
// reads each as a completion without choices, and a caller got no text.
// The client reads each as the chunk of text it holds; as nothing marks
// the answer's end, a body that ends after it still reads as cut.

// writerValueKey is the one member of every event of Writer's format.
const writerValueKey = `"value"`

// hasWriterValuePrefix reports whether data begins as an event of Writer's
// format does: "{", the key "value" and its colon, with or without JSON's
// white space between them ({"value":…}, { "value" : …}, or printed over
// lines). A completion's event fails at its first key, after a few byte
// comparisons.
func hasWriterValuePrefix(data []byte) bool {
	data = skipJSONSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return false
	}
	data = skipJSONSpace(data[1:])
	if !bytes.HasPrefix(data, []byte(writerValueKey)) {
		return false
	}
	data = skipJSONSpace(data[len(writerValueKey):])
	return len(data) > 0 && data[0] == ':'
}

// skipJSONSpace returns data after its leading JSON white space.
func skipJSONSpace(data []byte) []byte {
	for len(data) > 0 && (data[0] == ' ' || data[0] == '\t' || data[0] == '\n' || data[0] == '\r') {
		data = data[1:]
	}
	return data
}

// writerValue returns the completion chunk that data, an event of
// Writer's own format, says: its value as the text of choice 0. ok is
// false for any other event, at the cost of a prefix comparison (see
// hasWriterValuePrefix).
func writerValue(data []byte, model string) (chunk []byte, ok bool) {
	if !hasWriterValuePrefix(data) {
		return nil, false
	}
	var keys map[string]json.RawMessage
	var value *string
	if json.Unmarshal(data, &keys) != nil || len(keys) != 1 || json.Unmarshal(keys["value"], &value) != nil || value == nil {
		return nil, false
	}
	type choice struct {
		Index        int     `json:"index"`
		Text         string  `json:"text"`
		FinishReason *string `json:"finish_reason"`
		Logprobs     any     `json:"logprobs"`
	}
	c := struct {
		Object  string   `json:"object"`
		Model   string   `json:"model"`
		Choices []choice `json:"choices"`
	}{Object: "text_completion", Model: model, Choices: []choice{{Text: *value}}}
	b, err := json.Marshal(c)
	return b, err == nil
}
