package codec

import (
	"strings"

	"github.com/openai/openai-go/v3"
)

// maxEOSToken bounds the end-of-sequence token dropEOSToken takes off a
// choice's text: the longest a tokenizer's special token is spelled
// ("<|end_of_text|>", "<|endoftext|>", "<end_of_turn>", "</s>") with room
// to spare.
const maxEOSToken = 32

// dropEOSToken takes off the text of ch, a streamed completions choice
// that TGI finished "eos_token", the end-of-sequence token's own text.
// TGI's /v1/completions streams every token's text as its server decoded
// it, special tokens kept (skip_special_tokens False), so the last chunk,
// the one that carries the finish reason and the usage, holds the
// model's end-of-turn token, "<|eot_id|>" or "</s>", which the caller
// would read as the answer's last words; its chat stream drops a special
// token's text, and its whole answer decodes without them
// (huggingface/text-generation-inference router/src/server.rs,
// completions; router/src/chat.rs; server/text_generation_server/models/
// model.py, decode_token). Only "eos_token", TGI's own word, says the
// last token was that token; the text before it, bytes of a character a
// previous token began, is kept. It runs once per choice that finishes.
func dropEOSToken(ch *openai.CompletionChoice) {
	if ch.FinishReason != "eos_token" || !strings.HasSuffix(ch.Text, ">") {
		return
	}
	i := strings.LastIndexByte(ch.Text, '<')
	if i < 0 || len(ch.Text)-i > maxEOSToken || strings.ContainsAny(ch.Text[i:], " \t\r\n") {
		return
	}
	ch.Text = ch.Text[:i]
}
