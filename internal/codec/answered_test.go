package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestAnswered: the message a chat answer answers is the request's last,
// and, for a continuation, the last before the output so far and the
// continue prompt; the content of parts is their JSON.
func TestAnswered(t *testing.T) {
	p := openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{
		openai.SystemMessage("Be brief."), openai.UserMessage("I am Ann.")}}
	r := Chat(p, true)
	if got := Answered(r, false); got != "I am Ann." {
		t.Errorf("Answered = %q, want the last message's", got)
	}
	if got := Answered(r.For("m", &Continuation{Text: "Hel", Prompt: "Go on."}), true); got != "I am Ann." {
		t.Errorf("Answered of the continuation = %q, want the message before the output so far", got)
	}
	parts := openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{openai.TextContentPart("I am Bob.")})
	if got := Answered(Chat(openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{parts}}, true), false); got != `[{"text":"I am Bob.","type":"text"}]` {
		t.Errorf("Answered of parts = %q, want their JSON", got)
	}
	if got := Answered(nil, false) + Answered(Chat(openai.ChatCompletionNewParams{Model: "m"}, true), false); got != "" {
		t.Errorf("Answered of no request, or of no message = %q, want none", got)
	}
}
