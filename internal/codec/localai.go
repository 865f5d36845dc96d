package codec

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/openai/openai-go/v3"
)

// LocalAI's completions error chunk.
//
// LocalAI's /v1/completions (mudler/LocalAI,
// core/http/endpoints/openai/completion.go, CompletionEndpoint) reports a
// prediction that failed, before its first token (a model that would not
// load) or after some (a backend lost), as the last chunk of its stream:
// a text_completion chunk of one choice, finish_reason "stop", whose text
// is "Internal error: " and the error; then the body ends, without
// [DONE]. Its chunks are Go's encoding of its response type, which begins
// {"created":N,"object":"text_completion","id":"<UUID>"; a finished
// answer's last chunk holds no text.

// localAIInternalError is the text that begins LocalAI's error chunk.
const localAIInternalError = "Internal error: "

// localAIChunk matches the start of a LocalAI completions chunk.
var localAIChunk = regexp.MustCompile(`^\s*\{"created":[0-9]+,"object":"text_completion","id":"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"`)

// localAIError returns the error of comp, decoded from data, when it is
// LocalAI's completions error chunk: LocalAI's shape, one choice finished
// "stop" whose text begins with "Internal error: ", no usage; its
// message is that text. nil for any other chunk.
func localAIError(data []byte, comp *openai.Completion) *ServerError {
	if len(comp.Choices) != 1 || comp.JSON.Usage.Valid() || !localAIChunk.Match(data) {
		return nil
	}
	ch := &comp.Choices[0]
	if ch.FinishReason != "stop" || !strings.HasPrefix(ch.Text, localAIInternalError) {
		return nil
	}
	raw, err := json.Marshal(ch.Text)
	if err != nil {
		return nil
	}
	return &ServerError{Raw: string(raw)}
}
