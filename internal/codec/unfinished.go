package codec

import (
	"encoding/json"

	"github.com/openai/openai-go/v3"
)

// answerSeen follows, chunk by chunk, what a chat stream whose server may
// leave out its finish reason has shown (see ZeroChunkStream and
// LlamaRelayStream): whether a choice finished, whether some output or a
// tool call came.
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
