package wire

import (
	"bytes"
	"regexp"
)

// OllamaAnswer reports whether start, the start of a 2xx answer to a
// completions request or of one of its stream's events, comes from
// Ollama's OpenAI compatibility (ollama/ollama openai/openai.go,
// ToCompletion and ToCompleteChunk), under no header of its own: a text
// completion whose system_fingerprint is "fp_ollama", an id of "cmpl-"
// and a number. Its CompletionRequest has no echo, which encoding/json
// drops (August 2026): an echo request gets the completion alone, whole
// or streamed.
func OllamaAnswer(start []byte) bool {
	return ollamaAnswer.Match(start) && bytes.Contains(start, []byte(`"system_fingerprint":"fp_ollama"`))
}

var ollamaAnswer = regexp.MustCompile(`^\s*\{"id":"cmpl-[0-9]+","object":"text_completion","created":[0-9]+,`)
