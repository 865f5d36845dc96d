package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestHistory: the messages before a chat answer are the request's, and,
// for a continuation, those before the output so far and the continue
// prompt; none for no request or no message.
func TestHistory(t *testing.T) {
	p := openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{
		openai.SystemMessage("Be brief."), openai.UserMessage("I am Ann.")}}
	r := Chat(p, true)
	const want = `[{"content":"Be brief.","role":"system"},{"content":"I am Ann.","role":"user"}]`
	if got := string(History(r, false)); got != want {
		t.Errorf("History = %s, want %s", got, want)
	}
	if got := string(History(r.For("m", &Continuation{Text: "Hel", Prompt: "Go on."}), true)); got != want {
		t.Errorf("History of the continuation = %s, want %s", got, want)
	}
	if got := History(nil, false); got != nil {
		t.Errorf("History of no request = %s, want none", got)
	}
	if got := History(Chat(openai.ChatCompletionNewParams{Model: "m"}, true), false); got != nil {
		t.Errorf("History of no message = %s, want none", got)
	}
}
