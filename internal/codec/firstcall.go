package codec

import (
	"strings"

	"github.com/openai/openai-go/v3"
)

// firstCall accumulates the arguments of a stream's first tool call: the
// pieces of the deltas of its index that name no other id. With its id,
// they tell one assistant turn from another that made a call of the same
// id: Kimi's ids are functions.NAME:N, N counting the conversation's
// earlier calls (vllm/entrypoints/chat_utils.py, make_tool_call_id), so
// that the first call to a function has the same id in every
// conversation. It is fed only a stream's tool-call deltas.
type firstCall struct {
	seen, over bool
	index      int64
	id         string
	args       strings.Builder
}

// add adds tc, a tool-call delta of the stream's first choice.
func (f *firstCall) add(tc *openai.ChatCompletionChunkChoiceDeltaToolCall) {
	switch {
	case !f.seen:
		f.seen, f.index, f.id = true, tc.Index, tc.ID
	case tc.Index != f.index || tc.ID != "" && f.id != "" && tc.ID != f.id:
		return // another call
	case f.id == "":
		f.id = tc.ID
	}
	if f.over || f.args.Len()+len(tc.Function.Arguments) > maxDetailsBytes {
		f.over = true
		f.args.Reset()
		return
	}
	f.args.WriteString(tc.Function.Arguments)
}
