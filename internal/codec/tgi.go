package codec

import (
	"encoding/json"
	"strings"

	"github.com/tokenpace/tokenpace/internal/sse"
)

// TGI's streamed tool calls, which end with no finish reason.
//
// TGI's Messages API (huggingface/text-generation-inference, 3.2 and
// later: #3086, #3094) streams a tool call as the JSON its grammar makes
// the model write: the call's first delta names the function and opens
// its arguments ("{"), the next ones stream them, and the one that closes
// TGI's JSON has its last brace cut, so the arguments end whole. From
// there the stream's state is back to buffering, and the tokens after
// the call, the end-of-turn token that carries the finish reason among
// them, make no event (router/src/chat.rs, ChatState::push; its test
// test_chat_stream_tool_get_weather asserts none, "No tool finish"): the
// stream ends with the usage chunk, when asked for, and [DONE], no choice
// ever finished. A call cut at the token limit does come with its finish
// reason, "length", on the delta of the last token. Read as any other
// stream, the whole call was a cut answer (KindTruncated "no
// finish_reason"), and a Router took the next route's answer for it.

// TGIToolStream decodes a chat stream as the chat request does, and
// follows what it needs to tell TGI's whole call
// at [DONE] (see AtDone): whether the stream is TGI's, by its chunks'
// shape (see tgiChunk), whether a choice finished, and whether the
// arguments of its call (TGI makes one, at index 0) closed, with a
// scanner of their JSON that keeps none of their bytes.
type TGIToolStream struct {
	chat
	seen     bool // the first chunk was looked at
	tgi      bool // every chunk so far is in TGI's shape
	finished bool // a choice sent its finish reason
	model    string
	args     sse.JSONCloser
}

// Decode decodes the next event of the stream.
func (s *TGIToolStream) Decode(data []byte) (Event, error) {
	ev, err := s.chat.Decode(data)
	if err != nil || !(s.tgi || !s.seen) {
		return ev, err
	}
	c := ev.Chunk
	if !s.seen {
		//lint:ignore SA1019 TGI still sends it: its version tells its chunks
		s.seen, s.tgi, s.model = true, tgiChunk(c.ID, c.SystemFingerprint), c.Model
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			s.tgi = false
		}
		if Ends(ch) {
			s.finished = true
		}
		for _, tc := range ch.Delta.ToolCalls {
			if tc.Index != 0 {
				s.tgi = false
			}
			s.args.Feed(tc.Function.Arguments)
		}
	}
	if c.ID != "" {
		s.tgi = false
	}
	return ev, nil
}

// AtDone returns the finish TGI leaves out: at [DONE], an event whose
// one choice finished for "tool_calls", when the stream is TGI's, no
// choice finished, and the call's arguments are a whole JSON object. ok
// is false for any other stream, which [DONE] ends as it is.
func (s *TGIToolStream) AtDone() (ev Event, ok bool) {
	if !s.tgi || s.finished || !s.args.Whole() {
		return Event{}, false
	}
	model, _ := json.Marshal(s.model)
	ev, err := s.chat.Decode([]byte(`{"id":"","object":"chat.completion.chunk","created":0,"model":` + string(model) +
		`,"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}`))
	return ev, err == nil
}

// tgiChunk reports whether a chunk of id and fingerprint is in the shape
// of TGI's: no id (ChatCompletionChunk::new makes none), and the
// fingerprint TGI's version and Docker label ("3.3.6-native",
// "3.2.0-sha-5c5528e").
func tgiChunk(id, fingerprint string) bool {
	if id != "" {
		return false
	}
	version, label, ok := strings.Cut(fingerprint, "-")
	if !ok || label == "" {
		return false
	}
	parts := strings.Split(version, ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}
