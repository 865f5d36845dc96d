package codec

import "github.com/openai/openai-go/v3"

// ChoiceUsage adds up the usage a chat stream of several choices reports
// per choice. llama.cpp's server makes each choice of a request for n > 1
// a task of its own, whose final result writes its finish chunk and then,
// for include_usage, a usage chunk of its own ("choices": []) that counts
// that choice's output alone (tools/server/server-task.cpp:
// server_task_result_cmpl_final::to_json_oaicompat_chat_stream); taken as
// the answer's, the last usage is the output of the choice that finished
// last. OpenAI, vLLM and the others send one usage chunk once every choice
// has finished (vLLM's running usage rides on chunks with choices). So a
// usage chunk without choices that comes while some choice has finished
// and another has not is a choice's: from it on, the outputs of the usage
// chunks are added up. The prompt is one: its tokens are the largest any
// chunk reports, its cached ones the fewest. The zero value adds nothing
// up until such a chunk comes.
type ChoiceUsage struct {
	on  bool
	sum Usage
}

// Add returns the usage of the answer once chunk c reported u: u itself,
// unless the stream reports its usage per choice (see ChoiceUsage).
// finished is how many of want choices (the request's Choices) had sent
// their finish reason before c.
func (s *ChoiceUsage) Add(c *openai.ChatCompletionChunk, u Usage, finished, want int) Usage {
	if !s.on {
		if len(c.Choices) != 0 || finished == 0 || finished >= want {
			return u
		}
		s.on, s.sum = true, u
		return u
	}
	if len(c.Choices) != 0 {
		return s.sum
	}
	s.sum.Prompt = max(s.sum.Prompt, u.Prompt)
	s.sum.Cached = min(s.sum.Cached, u.Cached)
	s.sum.Output += u.Output
	s.sum.Reasoning += u.Reasoning
	return s.sum
}
