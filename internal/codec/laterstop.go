package codec

import "github.com/openai/openai-go/v3"

// LaterStop keeps a choice's finish reason against a "stop" sent after
// it. Arch's gateway (katanemo/archgw, also Plano: hermesllm's
// to_openai_streaming.rs), relaying Anthropic's Messages API as chat
// chunks, makes a chunk of Anthropic's message_delta, whose stop reason
// it maps ("length" for max_tokens, "tool_calls" for tool_use), and then
// one more of its message_stop, whose finish reason is always "stop":
// the last word would say that an answer cut at its limit ended by
// itself. A "stop" that comes after a choice's other finish reason is
// that reason again. The zero value holds no finish reason; a stream has
// one of its own.
type LaterStop struct {
	reasons []string // by choice index; "" for a choice not finished
}

// Keep gives each choice of c that says "stop" after another finish
// reason that reason, and notes the finish reasons c sends.
func (l *LaterStop) Keep(c *openai.ChatCompletionChunk) {
	for i := range c.Choices {
		ch := &c.Choices[i]
		x := ch.Index
		if ch.FinishReason == "" || x < 0 || x >= MaxChoices {
			continue
		}
		if int(x) >= len(l.reasons) {
			l.reasons = append(l.reasons, make([]string, int(x)+1-len(l.reasons))...)
		}
		switch first := l.reasons[x]; {
		case first == "":
			l.reasons[x] = ch.FinishReason
		case ch.FinishReason == "stop":
			ch.FinishReason = first
		}
	}
}
