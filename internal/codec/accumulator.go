package codec

import (
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// Accumulator accumulates the chat views of a stream's events into
// openai-go's ChatCompletionAccumulator as the server meant them: under
// the first chunk's id (some servers give every chunk an id of its own,
// which openai-go's accumulator would refuse), tool-call deltas placed by
// ToolSlots, and the usage the last the server reported, not the sum
// openai-go adds up (vLLM's continuous_usage_stats, and gateways that ask
// for it, send running totals with every chunk), with the counts as
// usageOf reads them; and audio output, which openai-go's accumulator
// drops, gathered into each message's Audio (see Completion). The zero
// value is ready to use.
type Accumulator struct {
	// Acc is the accumulated completion, but for its audio (see
	// Completion).
	Acc openai.ChatCompletionAccumulator
	// Limit is the output tokens the request allowed (its max tokens);
	// zero for none. See lengthFinish.
	Limit int64
	// Offered are the names of the functions the request offered as
	// tools (see OfferedFunctions); nil for none. Only a call to one of
	// them written as PLaMo's markup is made a call (see plamoCalls).
	Offered []string
	outputs int64 // output-bearing deltas, each at least a token
	// ranTools: the server ran the calls of the answer itself and sent
	// their results (see serverToolResult), so they keep the server's
	// finish reason (see toolCallsFinish).
	ranTools bool
	id       string
	tools    ToolSlots
	audio    audioChoices
	custom   customCalls
	legacy   functionCalls
	extras   messageExtras
	// finish is each choice's finish reason as the server gave it (as
	// openai-go's accumulator holds it), by choice index: Completion
	// derives its own from it anew each time it is called, so that a
	// reason it derived before a later chunk (the usage that says an
	// answer did not reach its limit) is not kept.
	finish []string
	// text is the first choice's text of a run of plain text chunks (see
	// plainText) not yet added to Acc, and last the latest of them; nil
	// when there is none. openai-go's accumulator makes a dozen passes of
	// bounds and bookkeeping over every chunk it adds, 5 to 8 % of a
	// stream's CPU (see BENCHMARKS.md): a run is added as one chunk, with
	// the same result, when the accumulation is read or a chunk of another
	// kind comes.
	text strings.Builder
	last *openai.ChatCompletionChunk
	// held is the output accumulated, in bytes as the server sent it
	// (see heldBy); over: held passed MaxOutputBytes.
	held int64
	over bool
	// runs is where each choice's run of a diffusion model's refinement
	// steps began, by choice index (see frameRun); nil until a step came.
	runs []frameRun
}

// MaxOutputBytes bounds the output an accumulation holds: its text,
// refusals, reasoning, tool calls, audio and log-probabilities, as the
// server sent them, and a response's output items given whole. No answer a model may give comes near it (a million
// tokens of text is some 4 MiB, ten minutes of audio some 20 MiB); a
// server that ignores its request's max tokens and streams on is refused
// there (see Over), not held for ever.
const MaxOutputBytes = 64 << 20

// Over reports whether Add refused a chunk because the output would pass
// MaxOutputBytes.
func (a *Accumulator) Over() bool { return a.over }

// itemHeld returns the bytes of the output item a Responses event gives
// whole (output_item.done), which a Router that continues a response
// keeps to give the caller's final response all its items. A response
// whose items pass MaxOutputBytes cannot end well anyway: its final event
// repeats them all, past the bound on an event (WithMaxLineBytes).
func itemHeld(ev *Event) int64 {
	if e, ok := ev.Orig.(*responses.ResponseStreamEventUnion); ok && e.Type == respItemDone {
		return int64(len(e.Item.RawJSON()))
	}
	return 0
}

// heldBy returns what c adds to an accumulation, in bytes as the server
// sent it: each choice's text, refusal, tool calls, legacy function
// call, log-probabilities (a token's entry some 100 bytes with its own),
// audio and extra fields (reasoning).
func heldBy(c *openai.ChatCompletionChunk) int64 {
	var n int
	for i := range c.Choices {
		ch := &c.Choices[i]
		d := &ch.Delta
		n += len(d.Content) + len(d.Refusal) + len(d.JSON.Audio.Raw())
		for j := range d.ToolCalls {
			tc := &d.ToolCalls[j]
			n += len(tc.ID) + len(tc.Function.Name) + len(tc.Function.Arguments)
		}
		//lint:ignore SA1019 servers still stream legacy function calls
		n += len(d.FunctionCall.Name) + len(d.FunctionCall.Arguments)
		for _, f := range d.JSON.ExtraFields {
			n += len(f.Raw())
		}
		n += 100 * (len(ch.Logprobs.Content) + len(ch.Logprobs.Refusal))
	}
	return int64(n)
}

// Add adds ev's chunk, leaving the chunk itself as it is. It reports
// false when openai-go's accumulator refused the chunk, or when the
// output would pass MaxOutputBytes (see Over).
func (a *Accumulator) Add(ev *Event) bool {
	c := ev.Chunk
	var cleared int64
	if ev.Frame {
		if !a.flush() {
			return false
		}
		cleared = a.framesCleared(c)
	}
	held := a.held - cleared + heldBy(c) + itemHeld(ev)
	if held > MaxOutputBytes {
		a.over = true
		return false
	}
	a.held = held
	if ev.Frame {
		a.replaceFrames(c)
	} else if len(a.runs) > 0 {
		a.endFrames(c)
	}
	if a.id == "" {
		a.id = c.ID
	}
	if serverToolResult(c) {
		a.ranTools = true
		a.tools.NextRound()
	}
	add, ok := a.tools.Rewrite(c)
	if !ok {
		return false
	}
	if ev.ToolCall {
		add = restatedArguments(&a.Acc.ChatCompletion, add)
	}
	if add.ID != a.id || add.JSON.Usage.Valid() {
		if add == c {
			cc := *c // the event's chunk keeps its own id and usage
			add = &cc
		}
		add.ID, add.Usage = a.id, openai.CompletionUsage{}
	}
	plain := !ev.Frame && a.plainText(ev, add)
	if plain {
		a.text.WriteString(add.Choices[0].Delta.Content)
		a.last = add
	} else if !a.flush() || !a.Acc.AddChunk(*add) {
		return false
	}
	if !ev.Frame {
		a.outputs += int64(ev.Outputs)
	}
	if ev.Audio || a.audio != nil {
		a.audio = a.audio.add(c)
	}
	if ev.ToolCall {
		a.custom.add(add)
		a.legacy.add(add)
	}
	a.extras.add(c)
	if ev.HasUsage && ev.Usage.Trusted() {
		a.Acc.Usage = lastUsage(c, ev.Usage)
	}
	if e := ev.End; e != nil {
		a.end(e)
	}
	if !plain {
		a.noteFinish(add, ev.End != nil)
	}
	return true
}

// plainText reports whether c, the chat view of ev, adds nothing to the
// accumulation but text to a first choice the accumulation has already:
// no other role, no refusal, tool call, logprobs, finish reason or end, other
// choice, audio or output of a custom tool.
func (a *Accumulator) plainText(ev *Event, c *openai.ChatCompletionChunk) bool {
	if ev.End != nil || ev.Audio || ev.ToolCall || len(c.Choices) != 1 || len(a.Acc.Choices) == 0 {
		return false
	}
	ch := &c.Choices[0]
	d := &ch.Delta
	// A legacy function call is ev.ToolCall too. The role may come again
	// with every delta (Ollama's, KoboldCpp's), the same.
	role := d.Role == "" || string(d.Role) == string(a.Acc.Choices[0].Message.Role)
	return ch.Index == 0 && d.Content != "" && role && d.Refusal == "" && len(d.ToolCalls) == 0 &&
		ch.FinishReason == "" && len(ch.Logprobs.Content) == 0 && len(ch.Logprobs.Refusal) == 0
}

// flush adds the pending run of plain text to Acc as one chunk, with the
// metadata of the run's last chunk, which openai-go's accumulator would
// have kept (it takes the model, creation time, fingerprint and service
// tier of every chunk it adds). It reports false when the accumulator
// refused the chunk.
func (a *Accumulator) flush() bool {
	last := a.last
	if last == nil {
		return true
	}
	c := openai.ChatCompletionChunk{
		ID: a.id, Model: last.Model, Created: last.Created, Object: last.Object, ServiceTier: last.ServiceTier,
		Choices: []openai.ChatCompletionChunkChoice{{Delta: openai.ChatCompletionChunkChoiceDelta{Content: a.text.String()}}},
	}
	//lint:ignore SA1019 servers still send it, and openai-go's accumulator keeps it
	c.SystemFingerprint = last.SystemFingerprint
	a.text, a.last = strings.Builder{}, nil
	if !a.Acc.AddChunk(c) {
		return false
	}
	a.noteFinish(&c, false)
	return true
}

// Text returns the first choice's accumulated text.
func (a *Accumulator) Text() string {
	a.flush()
	if ch := a.Acc.Choices; len(ch) > 0 {
		return ch[0].Message.Content
	}
	return ""
}

// noteFinish records the finish reason, as the server gave it, of each
// choice of chunk c, just accumulated, and of the first when a Responses
// stream ended.
func (a *Accumulator) noteFinish(c *openai.ChatCompletionChunk, ended bool) {
	ch := a.Acc.Choices
	if len(a.finish) < len(ch) {
		a.finish = append(a.finish, make([]string, len(ch)-len(a.finish))...)
	}
	for _, cc := range c.Choices {
		if i := int(cc.Index); i >= 0 && i < len(ch) {
			a.finish[i] = ch[i].FinishReason
		}
	}
	if ended && len(ch) > 0 {
		a.finish[0] = ch[0].FinishReason
	}
}

// end sets what a Responses stream's final event says of the whole
// answer, which its chat view does not carry: the finish reason, and the
// usage, as Timing has them.
func (a *Accumulator) end(e *End) {
	if len(a.Acc.Choices) > 0 && e.Reason != "" {
		a.Acc.Choices[0].FinishReason = e.Reason
	}
	if e.HasUsage {
		a.Acc.Usage = openai.CompletionUsage{PromptTokens: e.Input, CompletionTokens: e.Output, TotalTokens: e.Input + e.Output}
		a.Acc.Usage.PromptTokensDetails.CachedTokens = min(e.CachedInput, e.Input)
	}
}

// Completion returns the accumulated completion, each message with the
// audio its deltas streamed, if any, its reasoning and images in its
// JSON.ExtraFields (see messageExtras), its tool calls typed ("function"
// when the server gave no type, "custom" with the name and input of a
// custom tool's call: see functionTypes), its legacy function call, of a
// choice that streamed one and no tool calls (see functionCalls), the calls PLaMo wrote as its
// template's markup in the text made calls when the request offered
// them (see plamoCalls), gpt-oss's channels written as text split into
// reasoning, text and calls (see harmonyChannels), the "{}" a relay put before a
// call's arguments dropped (see emptyObjectArgs), the arguments a server
// sent again whole after a part of them kept once (see restartedArguments), its one choice that used every
// token allowed finished for "length" (see lengthFinish), and each other
// choice that streamed tool calls finished for "tool_calls" even when its
// server said "stop", unless the server ran them itself (see
// toolCallsFinish), and a reason its server
// names in a word of its own under OpenAI's name for it (see
// openAIFinish). The length comes first: a call cut at the limit has its
// arguments cut short, which "tool_calls" would have the caller run.
func (a *Accumulator) Completion() *openai.ChatCompletionAccumulator {
	a.flush()
	c := &a.Acc.ChatCompletion
	for i := range min(len(c.Choices), len(a.finish)) {
		c.Choices[i].FinishReason = a.finish[i]
	}
	a.audio.setOn(c)
	a.custom.setOn(c)
	a.legacy.setOn(c)
	a.extras.setOn(c)
	plamoCalls(c, a.Offered)
	harmonyChannels(c, a.Offered)
	functionTypes(c)
	emptyObjectArgs(c)
	lengthFinish(c, a.Limit, a.outputs)
	openAIFinish(c)
	restartedArguments(c)
	toolCallsFinish(c, !a.ranTools)
	noCallsFinish(c)
	return &a.Acc
}

// Reset starts the accumulation over, at a restarted output: all but
// what the request set (Limit, Offered) is the new output's, its id and
// whether its server ran tools among them.
func (a *Accumulator) Reset() {
	*a = Accumulator{Limit: a.Limit, Offered: a.Offered}
}

// lastUsage is the usage of the accumulated completion once chunk c
// reported u, a Trusted one: u's counts (the cached ones at most the
// prompt's; the total theirs when the server gave none, or when u's
// output is not the chunk's, as for a usage added up per choice: see
// ChoiceUsage), or when u's prompt is not the chunk's, as for a relay's
// prompt_tokens that left out the cache reads (see promptWithCache), its
// reasoning tokens u's where the chunk's usage gave
// none under chat's name (a count read elsewhere, or Gemini's thoughts
// read from its total: see geminiThoughtsUncounted), and the chunk's
// other details kept.
func lastUsage(c *openai.ChatCompletionChunk, u Usage) openai.CompletionUsage {
	var out openai.CompletionUsage
	if c.JSON.Usage.Valid() {
		out = c.Usage
	}
	if out.TotalTokens <= 0 || out.CompletionTokens != u.Output || out.PromptTokens != u.Prompt {
		out.TotalTokens = u.Prompt + u.Output
	}
	out.PromptTokens, out.CompletionTokens = u.Prompt, u.Output
	out.PromptTokensDetails.CachedTokens = min(u.Cached, u.Prompt)
	if out.CompletionTokensDetails.ReasoningTokens == 0 {
		out.CompletionTokensDetails.ReasoningTokens = u.Reasoning
	}
	return out
}
