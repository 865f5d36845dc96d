package codec

import (
	"github.com/openai/openai-go/v3"
)

// geminiCLIErrorPrefix opens the failure gemini-cli-openai writes as an
// answer's text (see geminiCLIError).
const geminiCLIErrorPrefix = "Error: Stream request failed: "

// geminiCLIError returns the error of chunk c when c is Code Assist's
// refusal that gemini-cli-openai, a bridge that serves Gemini CLI's OAuth
// as /v1/chat/completions, writes as the answer's text: its 200 event
// stream is sent before Code Assist is asked, and a status other than 200
// (a 429 or 503 once retried four times, a 403, a 400) is thrown as
// "Stream request failed: <status>", caught and written as a text chunk,
// "Error: " and the message, which a chunk finished "stop" and [DONE]
// follow (GewoonJaap/gemini-cli-openai src/routes/openai.ts, the chat
// route's catch; src/gemini-client.ts, performStreamRequest;
// GewoonJaap/gemini-cli-openai#176 shows the bytes). Read as text, the
// refusal would be the whole answer. The status goes into Code, whence a
// refusal of 400 to 499 is the request's (a breaker does not count it)
// and a 429 or 5xx the route's. Only a chunk that opens with the prefix
// pays more than its comparison.
func geminiCLIError(c *openai.ChatCompletionChunk) *ServerError {
	ch, status, ok := contentAfter(c, geminiCLIErrorPrefix)
	if !ok || ch.FinishReason != "" || !threeDigits(status) {
		return nil
	}
	return &ServerError{Code: status, Message: ch.Delta.Content[len("Error: "):], Type: "server_error"}
}

// threeDigits reports whether s is three decimal digits, an HTTP status.
func threeDigits(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := range 3 {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
