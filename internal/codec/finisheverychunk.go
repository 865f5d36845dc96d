package codec

import "github.com/openai/openai-go/v3"

// EveryChunkFinish tells the finish reasons of a server that sends one
// with every chunk from the first token on. mlx-omni-server does so
// (madroidmaq/mlx-omni-server
// src/mlx_omni_server/chat/openai/openai_adapter.py, generate_stream:
// `chunk.finish_reason or "stop"`), its engine's own reason on the last
// token's chunk and again on its usage chunk: its first "stop" is not the
// answer's end, and a stream cut after it is a cut answer. A choice that
// sends output other than audio (vLLM-Omni's spoken answer comes after
// its text's finish: see omniAudio) after its finish reason shows the
// habit; from then on a
// finish reason ends a choice only on a chunk without output, as the
// usage chunk is, or the stream's [DONE] ends the answer. The zero value
// has seen no such choice.
type EveryChunkFinish struct {
	seen bool
}

// Ends reports whether ch, a choice of the next chunk, ends its choice,
// given finished, the choices that sent their finish reason before (see
// Ends, the function); reopened reports whether ch brought output to a
// choice finished before, whose finish was then not its end. Until a
// stream shows the habit, only a finished choice's chunk pays for more
// than a bit test; once it has, every chunk pays the check of its output.
func (e *EveryChunkFinish) Ends(ch *openai.ChatCompletionChunkChoice, finished *Finished) (ends, reopened bool) {
	if !e.seen && !finished.Has(ch.Index) {
		return Ends(ch), false
	}
	out := outputBearing(&ch.Delta) && !audioOutput(&ch.Delta) // audio after the text's finish is vLLM-Omni's spoken answer (see omniAudio)
	if out && finished.Has(ch.Index) {
		e.seen, reopened = true, true
	}
	return Ends(ch) && !(e.seen && out), reopened
}

// EndsAtUsage reports whether a chunk of no choices that carries the
// usage ends an answer whose every choice of want (a request's Choices)
// sent its finish reason before, in a stream that showed the habit, if
// the body ends cleanly right after it. Such a server may write no finish
// of its own at the end: Microsoft Agent Framework's hosted Chat
// Completions endpoint (microsoft/agent-framework
// dotnet/src/Microsoft.Agents.AI.Hosting.OpenAI/ChatCompletions/AIAgentChatCompletionsProcessor.cs,
// GetStreamingChunksAsync) gives every chunk with output the finish
// reason "stop" when its update has none, writes the model's own finish
// as a chunk of no choices, its usage on another, and no [DONE]. It
// writes the usage of each model call its agent makes, so a usage chunk
// may come mid-answer (a sequential workflow served as an agent:
// dotnet/src/Microsoft.Agents.AI.Workflows, AgentWorkflowBuilder.BuildSequential,
// WorkflowHostingExtensions.AsAIAgent): it is not the answer's end until
// the body ends after it, and a wait or an error after it is the
// answer's, not a whole answer's. A stream cut before it stays cut. Until
// a stream shows the habit it costs a bit test.
func (e *EveryChunkFinish) EndsAtUsage(choices int, hasUsage bool, finished *Finished, want int) bool {
	return e.seen && hasUsage && choices == 0 && finished.Count() >= want
}

// Seen reports whether the stream showed the habit: its end is then
// its [DONE], or a finish reason on a chunk without output.
func (e *EveryChunkFinish) Seen() bool { return e.seen }
