package codec

import "github.com/openai/openai-go/v3"

// ChoiceUsage adds up the usage a stream of several choices reports per
// choice. llama.cpp's server makes each choice of a request for n > 1 a
// task of its own, whose final result counts that choice's output alone
// (tools/server/server-task.cpp, server_task_result_cmpl_final): a chat
// stream's writes its finish chunk and then, for include_usage, a usage
// chunk of its own ("choices": [], to_json_oaicompat_chat_stream); a
// completions stream's carries the usage on the finish chunk itself,
// beside the choice (to_json_oaicompat). Taken as the answer's, the last
// usage is the output of the choice that finished last. OpenAI, vLLM and
// the others send one usage once every choice has finished; vLLM's
// running usage (continuous_usage_stats) rides on every chunk, those that
// finish no choice too. So a usage that comes while some choice has
// finished and another has not, on a chunk without choices or on one
// whose every choice finishes there, before any usage on a chunk that
// finished none, is a choice's: from it on, the outputs of such usages
// are added up. The prompt is one: its tokens are the largest any chunk
// reports, its cached ones the fewest. The zero value adds nothing up
// until such a usage comes.
type ChoiceUsage struct {
	on      bool
	running bool // a usage came on a chunk that finished no choice
	sum     Usage
}

// Add returns the usage of the answer once chunk c reported u: u itself,
// unless the stream reports its usage per choice (see ChoiceUsage).
// finished is how many of want choices (the request's Choices) had sent
// their finish reason before c.
func (s *ChoiceUsage) Add(c *openai.ChatCompletionChunk, u Usage, finished, want int) Usage {
	ending := len(c.Choices) > 0
	for i := range c.Choices {
		ending = ending && Ends(&c.Choices[i])
	}
	if len(c.Choices) != 0 && !ending {
		s.running = true
		if s.on {
			return s.sum
		}
		return u
	}
	if !s.on {
		// The finished choices, counting those that finish in c.
		done := finished + len(c.Choices)
		if s.running || finished >= want || done == 0 || done >= want {
			return u
		}
		s.on, s.sum = true, u
		return u
	}
	s.sum.Prompt = max(s.sum.Prompt, u.Prompt)
	s.sum.Cached = min(s.sum.Cached, u.Cached)
	s.sum.Output += u.Output
	s.sum.Reasoning += u.Reasoning
	return s.sum
}
