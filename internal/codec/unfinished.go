package codec

import (
	"encoding/json"

	"github.com/openai/openai-go/v3"
)

// answerSeen follows, chunk by chunk, what a chat stream whose server may
// leave out its finish reason has shown (see shapeWatch): whether a
// choice finished, whether some output or a tool call came.
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
// "tool_calls" after a tool call (a server that parses calls from the
// model's text sends them whole at the end), else "stop".
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

// shapeWatch follows whether every chunk of a chat stream so far is in
// the shape of one server that leaves out its finish reason (see
// ZeroChunkStream, LlamaEdgeStream, LlamaRelayStream, SparkStream,
// KongClaudeStream), and
// what the answer showed (see answerSeen). A stream whose first chunk is
// not in that shape costs nothing more. The zero value is ready to use.
type shapeWatch struct {
	seen  bool   // a chunk was looked at
	in    bool   // every chunk so far is in the shape
	model string // the first chunk's model
	answerSeen
}

// watch records ev, a decoded event, while every chunk before it was in
// the shape that in tells.
func (w *shapeWatch) watch(ev Event, in func(*openai.ChatCompletionChunk) bool) {
	c := ev.Chunk
	if c == nil || (w.seen && !w.in) {
		return
	}
	if !w.seen {
		w.seen, w.in, w.model = true, true, c.Model
	}
	w.in = w.see(ev, c) && w.in && in(c)
}

// due reports whether every chunk was in the shape and the answer had
// output but no finish: its server left the finish out.
func (w *shapeWatch) due() bool { return w.in && w.unfinished() }
