package main

import (
	"math/rand/v2"
	"strings"

	"github.com/openai/openai-go/v3"
)

// promptWords are short common English words: with their leading space,
// each is one token for the usual BPE tokenizers and four bytes for the
// simulator's four-bytes-per-token estimate.
var promptWords = strings.Fields(`the and for are but not you all any can had her was one our out day get has him
his how man new now old see two way who boy did its let put say she too use big end far few got key law lot low
map may net own pay per red run sea set sit six sky sun ten top try war win yes yet act add age ago air arm art
ask bad bag bed box buy car cup cut dog dry due ear eat egg eye fan fit fix fly fun gas hat hit hot ice job kid`)

// Chat framing the simulator adds to the content's tokens: four per message
// and three to prime the reply.
const promptOverhead = 7

// newPromptMaker returns the parameters of request i: a single user message
// of about promptTokens tokens, different for every request (so no prefix
// cache serves it), and max_tokens.
func newPromptMaker(model string, promptTokens, maxTokens int, seed uint64) func(i int) openai.ChatCompletionNewParams {
	words := max(promptTokens-promptOverhead, 1)
	return func(i int) openai.ChatCompletionNewParams {
		text := randomWords(rand.New(rand.NewPCG(seed, uint64(i))), words)
		return openai.ChatCompletionNewParams{
			Model:     model,
			Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage(text)},
			MaxTokens: openai.Int(int64(maxTokens)),
		}
	}
}
