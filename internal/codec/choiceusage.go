package codec

import "github.com/openai/openai-go/v3"

// ChoiceUsage adds up the usage a stream of several choices reports per
// choice. llama.cpp's server makes each choice of a request for n > 1, and
// each prompt of a completion's list of prompts, a task of its own, whose
// final result counts that task's prompt and output alone
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
// are added up. Each prompt counts once, as OpenAI and vLLM count a list
// of prompts: its tokens are the largest its choices report, its cached
// ones the fewest, and the answer's are the sum over the prompts. A
// choice belongs to prompt index / n (llama.cpp's server numbers the
// tasks of each prompt after the last prompt's, tools/server/server-queue.cpp,
// server_response_reader::post_tasks; OpenAI's index is prompt × n + j);
// a usage on a chunk without choices, to the first prompt. A completions
// request of several prompts is streamed by TensorRT-LLM's trtllm-serve as
// one generator per prompt, merged, each ending with a usage chunk of its
// own, without choices, that counts its prompt and its output alone
// (tensorrt_llm/serve/postprocess_handlers.py,
// completion_stream_post_processor; openai_server.py, merge_generators):
// for such a request every usage without choices that comes once a
// choice has finished is added up, each the next prompt's, in whatever
// order the prompts end, and vLLM's one usage for them all is taken as
// it is. The zero value adds nothing up until such a usage comes.
type ChoiceUsage struct {
	on      bool
	running bool     // a usage came on a chunk that finished no choice
	bare    int      // usages without choices added up, for several prompts
	out     Usage    // the outputs added up
	prompts []prompt // each prompt's tokens, once on
}

// prompt is what the choices of one prompt reported of it.
type prompt struct {
	seen           bool
	tokens, cached int64
}

// Add returns the usage of the answer once chunk c reported u: u itself,
// unless the stream reports its usage per choice (see ChoiceUsage).
// finished is how many of want choices (the request's Choices) had sent
// their finish reason before c; prompts is how many prompts they answer
// (the request's Prompts), want / prompts choices each.
func (s *ChoiceUsage) Add(c *openai.ChatCompletionChunk, u Usage, finished, want, prompts int) Usage {
	ending := len(c.Choices) > 0
	for i := range c.Choices {
		ending = ending && Ends(&c.Choices[i])
	}
	if len(c.Choices) != 0 && !ending {
		s.running = true
		if s.on {
			return s.sum()
		}
		return u
	}
	if !s.on {
		// The finished choices, counting those that finish in c.
		done := finished + len(c.Choices)
		// A usage without choices for a request of several prompts,
		// once one has finished, is a prompt's (trtllm-serve's) or the
		// whole answer's (vLLM's): either adds up.
		perPrompt := prompts > 1 && len(c.Choices) == 0 && done > 0
		if s.running || !perPrompt && (finished >= want || done == 0 || done >= want) {
			return u
		}
		s.on, s.prompts = true, make([]prompt, max(prompts, 1))
	}
	p := &s.prompts[0]
	switch {
	case len(c.Choices) > 0:
		per := max(want/len(s.prompts), 1)
		p = &s.prompts[min(max(int(c.Choices[0].Index)/per, 0), len(s.prompts)-1)]
	case len(s.prompts) > 1:
		// Each prompt's own usage, in the order the prompts ended.
		p = &s.prompts[min(s.bare, len(s.prompts)-1)]
		s.bare++
	}
	if !p.seen {
		p.seen, p.tokens, p.cached = true, u.Prompt, u.Cached
	}
	p.tokens = max(p.tokens, u.Prompt)
	p.cached = min(p.cached, u.Cached)
	s.out.Output += u.Output
	s.out.Reasoning += u.Reasoning
	s.out.Rejected += u.Rejected
	return s.sum()
}

// sum returns the answer's usage: the outputs added up, and each prompt's
// tokens once.
func (s *ChoiceUsage) sum() Usage {
	u := s.out
	for _, p := range s.prompts {
		u.Prompt += p.tokens
		u.Cached += p.cached
	}
	return u
}
