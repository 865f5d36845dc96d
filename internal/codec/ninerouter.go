package codec

import (
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3"
)

// abortedIDPrefix opens the id of the finish chunk 9router writes itself
// when its upstream fails mid-stream (see abortedTerminal).
const abortedIDPrefix = "chatcmpl-aborted-"

// abortedTerminal reports whether c is the finish chunk 9router writes to
// an OpenAI chat client when its upstream fails mid-stream (a stall
// timeout, a socket reset): one choice of an empty delta and
// finish_reason "stop", an id of its own, "chatcmpl-aborted-" and the time
// in ms, model "", no usage, then [DONE], "so a client cannot distinguish
// an aborted stream from a clean EOF" (decolua/9router
// open-sse/utils/streamTerminalBuilders.js,
// buildAbortedOpenAIChatTerminalBytes, called by
// createDisconnectAwareStream). Read as the server's finish, a cut answer
// would be taken for a whole one, which a Router would not continue. Its
// shape is Open WebUI's dropped error's (see emptyStop), with an id of its
// own; a chunk that carries no finish reason fails at its first checks.
func abortedTerminal(c *openai.ChatCompletionChunk) bool {
	return emptyStop(c) && c.Model == "" && c.Choices[0].Delta.Role == "" && strings.HasPrefix(c.ID, abortedIDPrefix)
}

// commandCodeErrorPrefix and commandCodeErrorSuffix enclose the error
// 9router's CommandCode provider writes as an answer's text (see
// commandCodeError).
const (
	commandCodeErrorPrefix = "\n\n[CommandCode error: "
	commandCodeErrorSuffix = "]"
)

// commandCodeError returns the error of chunk c when c is an upstream
// error 9router's CommandCode provider wrote as the answer's text before
// its #4130: one choice whose whole content is "\n\n[CommandCode error: ",
// the error (a JSON object, or a string) and "]", which a chunk of an
// empty delta and finish_reason "stop" follows (decolua/9router
// open-sse/translator/response/commandcode-to-openai.js at 304eae6,
// commandCodeToOpenAIResponse; decolua/9router#3468, #3636, #4129). Read
// as text, CommandCode's 503 would be the whole answer.
func commandCodeError(c *openai.ChatCompletionChunk) *ServerError {
	ch, body, ok := contentAfter(c, commandCodeErrorPrefix)
	if !ok || ch.FinishReason != "" {
		return nil
	}
	body, ok = strings.CutSuffix(body, commandCodeErrorSuffix)
	if !ok {
		return nil
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal([]byte(body), &obj) == nil && obj.Message != "" {
		return &ServerError{Raw: body, Message: obj.Message, Type: "server_error"}
	}
	raw, _ := json.Marshal(body)
	return &ServerError{Raw: string(raw), Message: body, Type: "server_error"}
}
