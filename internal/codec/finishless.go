package codec

import (
	"encoding/json"

	"github.com/openai/openai-go/v3"
)

// Servers whose chat answers end without a finish reason.
//
// Some servers never send one: a whole answer ends with [DONE] after its
// last token (or its usage chunk), a cut one without [DONE] or with an
// error. Read as any other stream, every whole answer of theirs was a cut
// one (KindTruncated "no finish_reason"), and a Router carried on an
// answer that was whole. Each is told by the shape of its chunks, which no
// other server's take; finishless lists them, each file that defines a
// shape says where it was learnt. A stream whose first chunk is in none
// of those shapes costs nothing more.

// finishless lists the servers whose answers end without a finish
// reason, by the shape of their chunks.
var finishless = [...]shape{
	{in: zeroChunk},      // Nexa SDK's server (zerochunks.go)
	{in: llamaEdgeChunk}, // LlamaEdge's api-server (llamaedge.go)
	{in: llamaServerChunk, some: llamaBuild, bare: true}, // llama-server behind cortex.cpp's relay (llamarelay.go)
	{in: sparkChunk},                          // iFlytek Spark's API (spark.go)
	{in: kongClaudeChunk},                     // Kong's ai-proxy in front of Anthropic (kongclaude.go)
	{in: foundryLocalChunk},                   // Foundry Local before 1.0.0 (foundrylocal.go)
	{in: snowflakeChunk},                      // Snowflake Cortex, a Claude model (snowflake.go)
	{in: oneAPIGeminiChunk},                   // one-api's Gemini channel (oneapigemini.go)
	{in: vllmMLXChunk, some: vllmMLXCloseOut}, // vllm-mlx 0.4.0 (vllmmlx.go)
	{in: geminiProxyChunk},                    // gemini-openai-proxy (geminiproxy.go)
	{in: autogenWebAPIChunk},                  // AutoGen for .NET's AutoGen.WebAPI (autogenwebapi.go)
}

// shape is the shape of one server's chunks (see finishless).
type shape struct {
	// in reports whether a chunk is in the shape.
	in func(c *openai.ChatCompletionChunk) bool
	// some, when set, must hold for some chunk of the stream too.
	some func(c *openai.ChatCompletionChunk) bool
	// bare: the finish is given only at a [DONE] that ends the body
	// with no line break (see BareDoneFinisher); else at any [DONE].
	bare bool
}

// ChatStream decodes a chat stream as TGIToolStream does, and follows
// what it needs to give, at [DONE], the finish a server of finishless
// left out (see AtDone and AtBareDone): which shapes every chunk so far
// is in, whether a choice finished, and whether the answer had any
// output. It reads the text of a model that streams it whole so far as
// the pieces its chunks add (see wholeSoFar), a first chunk that is
// distributed-llama's chat template's opening as no output (see
// dllamaPrefill), and ends, cut, a stream whose answer another provider
// starts over (see providerSwitch).
type ChatStream struct {
	TGIToolStream
	seen   bool   // a chunk was looked at
	model  string // the first chunk's model
	in     uint32 // bit i: every chunk so far is in finishless[i]'s shape
	some   uint32 // bit i: some chunk held finishless[i].some
	answer answerSeen
	whole  wholeSoFar
	// spoke: a chunk before held output, so the placeholder's words
	// are the model's (see dropNoResponse).
	spoke  bool
	source providerSwitch
	pairs  surrogateJoin // a character split between two events (see surrogateJoin)
	// modal: a chunk carried vLLM-Omni's modality; staged: and the
	// request may have an audio stage, so the server's errors are
	// verdicts on the answer and its events Spoken (see omniStaged,
	// audioStaged).
	modal, staged bool
}

// Decode decodes the next event of the stream.
func (s *ChatStream) Decode(data []byte) (Event, error) {
	data = s.pairs.join(data)
	ev, err := s.TGIToolStream.Decode(data)
	if err != nil && s.staged {
		err = stageFailed(err)
	}
	if err == nil && !s.modal && ev.Chunk != nil && omniStaged(ev.Chunk) {
		s.modal, s.staged = true, audioStaged(s.chat)
	}
	if err == nil && !s.seen && ev.Chunk != nil && messageInStream(ev.Chunk) {
		if whole, ok := WholeChat(s.chat, data); ok {
			ev = whole
		}
	}
	if err == nil && s.staged {
		ev.Spoken = true
	}
	if err == nil && ev.Chunk != nil {
		if !s.spoke && dropNoResponse(ev.Chunk) {
			ev.Outputs = 0
			if outputBearing(&ev.Chunk.Choices[0].Delta) {
				ev.Outputs = 1
			}
		}
		s.spoke = s.spoke || ev.Outputs > 0
		if err := s.whole.cut(&ev); err != nil {
			return Event{}, err
		}
		if err := s.source.check(&ev); err != nil {
			return Event{}, err
		}
	}
	if err != nil || ev.Chunk == nil || (s.seen && s.in == 0) {
		return ev, err
	}
	c := ev.Chunk
	if !s.seen {
		s.seen, s.model, s.in = true, c.Model, 1<<len(finishless)-1
		if dllamaPrefill(c) {
			ev.Outputs = 0 // the prompt's words, sent before the prefill (see dllamaPrefill)
		}
	}
	if !s.answer.see(ev, c) {
		s.in = 0 // a choice other than the first: none of them sends one
		return ev, nil
	}
	for i := range finishless {
		bit := uint32(1) << i
		switch f := &finishless[i]; {
		case s.in&bit == 0:
		case !f.in(c):
			s.in &^= bit
		case f.some != nil && f.some(c):
			s.some |= bit
		}
	}
	return ev, nil
}

// due reports whether every chunk was in the shape of a server of
// finishless whose finish bare tells the [DONE] of, and the answer had
// output but no choice finished: its server left the finish out.
func (s *ChatStream) due(bare bool) bool {
	if s.in == 0 || !s.answer.unfinished() {
		return false
	}
	for i := range finishless {
		bit := uint32(1) << i
		if f := &finishless[i]; s.in&bit != 0 && f.bare == bare && (f.some == nil || s.some&bit != 0) {
			return true
		}
	}
	return false
}

// AtDone returns the finish a server of finishless left out: at [DONE],
// an event whose one choice finished for "tool_calls" after a tool call
// (such servers parse calls from the model's text and send them whole at
// the end), else "stop", when every chunk was in its shape, no choice
// finished and some output came; else what TGIToolStream returns. Its
// limit's "length" is lost. Accumulated() tells it from the count of the
// deltas, as it does for a relay that says "stop" for it, only when
// each delta held one token: a chunk of Kong's is one of Anthropic's text
// deltas, which may hold several, and then its answer cut at max_tokens
// reads "stop" there too, for no byte of its stream tells the cut.
func (s *ChatStream) AtDone() (ev Event, ok bool) {
	if !s.due(false) {
		return s.TGIToolStream.AtDone()
	}
	return s.answer.finish(&s.chat, s.model)
}

// AtBareDone returns, as AtDone does, the finish a relay whose [DONE]
// ends the body with no line break dropped (llama-server's behind
// cortex.cpp). ok is false for any other stream.
func (s *ChatStream) AtBareDone() (ev Event, ok bool) {
	if !s.due(true) {
		return Event{}, false
	}
	return s.answer.finish(&s.chat, s.model)
}

// answerSeen follows, chunk by chunk, what a chat stream whose server may
// leave out its finish reason has shown: whether a choice finished,
// whether some output or a tool call came.
type answerSeen struct {
	finished bool // a choice sent its finish reason
	output   bool // some chunk carried output
	toolCall bool // some chunk carried a tool call
}

// see records ev, whose chunk is c, and reports whether every choice of c
// is the first (index 0).
func (a *answerSeen) see(ev Event, c *openai.ChatCompletionChunk) (first bool) {
	first = true
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			first = false
		}
		if Ends(ch) {
			a.finished = true
		}
	}
	a.output = a.output || ev.Outputs > 0 || ev.ToolCall
	a.toolCall = a.toolCall || ev.ToolCall
	return first
}

// unfinished reports whether the answer had output and no choice
// finished: its server left the finish out.
func (a *answerSeen) unfinished() bool { return a.output && !a.finished }

// finish returns the event that gives such an answer of model the finish
// its server left out, decoded by d: its one choice finished for
// "tool_calls" after a tool call, else "stop".
func (a *answerSeen) finish(d *chat, model string) (Event, bool) {
	reason := `"stop"`
	if a.toolCall {
		reason = `"tool_calls"`
	}
	m, _ := json.Marshal(model)
	ev, err := d.Decode([]byte(`{"id":"","object":"chat.completion.chunk","created":0,"model":` + string(m) +
		`,"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":` + reason + `}]}`))
	return ev, err == nil
}
