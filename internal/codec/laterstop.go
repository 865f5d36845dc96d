package codec

import "github.com/openai/openai-go/v3"

// LaterStop keeps a choice's finish reason against a "stop" sent after
// it. Arch's gateway (katanemo/archgw, also Plano: hermesllm's
// to_openai_streaming.rs), relaying Anthropic's Messages API as chat
// chunks, makes a chunk of Anthropic's message_delta, whose stop reason
// it maps ("length" for max_tokens, "tool_calls" for tool_use), and then
// one more of its message_stop, whose finish reason is always "stop":
// the last word would say that an answer cut at its limit ended by
// itself. mlx-omni-server writes finish_reason "stop" on every chunk
// from the first token on, mlx-lm's own reason ("length" for an answer
// cut at max_tokens) on the last token's, then "stop" again on its usage
// chunk (madroidmaq/mlx-omni-server
// src/mlx_omni_server/chat/openai/openai_adapter.py, generate_stream:
// `chunk.finish_reason or "stop"`). A "stop" that comes after a choice's
// other finish reason is the latest such reason again. The zero value
// holds no finish reason; a stream has one of its own.
type LaterStop struct {
	reasons []string // by choice index: the latest finish reason other than "stop"; "" for none
}

// Keep gives each choice of c that says "stop" after another finish
// reason the latest such reason, and notes the other finish reasons c
// sends.
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
		switch {
		case ch.FinishReason != "stop":
			l.reasons[x] = ch.FinishReason
		case l.reasons[x] != "":
			ch.FinishReason = l.reasons[x]
		}
	}
}
