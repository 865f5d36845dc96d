package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Streams with tools refused.
//
// llama.cpp's server from #9639 (30 January 2025), which brought its tool
// calls, to #12379 (25 May 2025), which streamed them, refused a streamed
// chat request with tools: 500, "Cannot use tools with stream". openai-go
// sent it twice more, each refused, and a breaker counted the refusals
// against a server that answers the same request whole. Such a request
// is sent again at once without streaming, and its whole answer reaches
// the caller as a stream of one event: the answer as a chunk, then
// [DONE]; later such requests to that server go whole from the start
// (see RefusedFields, where the server is noted as refusing
// StreamedTools). The caller's first token is then the whole answer,
// which is what it waited for.

// StreamedTools names, in RefusedFields, a streamed chat request with
// tools: a server noted as refusing it gets such a request whole (see
// Unstreamed).
const StreamedTools = "stream with tools"

// Unstreamed returns body, a chat request's JSON, as the request for its
// whole answer (stream false, no stream_options), and whether it was a
// streamed one with tools; body itself when it was not.
func Unstreamed(body []byte) ([]byte, bool) {
	if !gjson.GetBytes(body, "stream").Bool() || len(gjson.GetBytes(body, "tools").Array()) == 0 {
		return body, false
	}
	out, err := sjson.SetBytes(body, "stream", false)
	if err != nil {
		return body, false
	}
	out, _ = Without(out, StreamOptions)
	return out, true
}

// AsStream returns res, the whole answer to a chat request sent whole
// for a stream (see Unstreamed), as an event stream: the answer as one
// chat completion chunk (each choice's message as its delta, each tool
// call with its index), then [DONE]. An error status, or an answer that
// is not a chat completion, is returned as it is. The answer is read as
// the stream is, once its first byte is asked for, bounded as a whole
// answer is (see LimitBody).
func AsStream(res *http.Response) *http.Response {
	if res == nil || res.StatusCode >= 300 || res.Body == nil {
		return res
	}
	res.Header = res.Header.Clone()
	res.Header.Set("Content-Type", "text/event-stream")
	res.Header.Del("Content-Length")
	res.ContentLength = -1
	res.Body = &wholeStream{body: LimitBody(res.Body)}
	return res
}

// wholeStream reads a whole chat answer and gives it as an event stream.
type wholeStream struct {
	body io.ReadCloser
	out  *bytes.Reader // nil until the answer has been read
	err  error         // the read error of the answer
}

func (s *wholeStream) Read(p []byte) (int, error) {
	if s.out == nil {
		b, err := io.ReadAll(s.body)
		if err != nil {
			s.err = err
			return 0, err
		}
		s.out = bytes.NewReader(asChunkEvents(b))
	}
	if s.err != nil {
		return 0, s.err
	}
	return s.out.Read(p)
}

func (s *wholeStream) Close() error { return s.body.Close() }

// asChunkEvents returns b, a whole chat completion, as the event stream
// of one chunk that holds it, then [DONE]; b as one event when it is not
// a chat completion (an error object), for the decoder to tell. Each
// choice and tool call is rewritten apart and the chunk set once, so that
// its time and memory stay in proportion to b whatever it holds.
func asChunkEvents(b []byte) []byte {
	chunk := b
	set := func(b []byte, err error) {
		if err == nil {
			chunk = b
		}
	}
	if c := gjson.ParseBytes(b); c.Get("object").String() == "chat.completion" && c.Get("choices").IsArray() {
		choices := make([]byte, 0, len(c.Get("choices").Raw)+64)
		choices = append(choices, '[')
		for i, ch := range c.Get("choices").Array() {
			if i > 0 {
				choices = append(choices, ',')
			}
			choices = append(choices, chunkChoice(ch)...)
		}
		set(sjson.SetRawBytes(chunk, "choices", append(choices, ']')))
		set(sjson.SetBytes(chunk, "object", "chat.completion.chunk"))
	}
	var line bytes.Buffer
	if json.Compact(&line, chunk) != nil {
		line.Reset()
		line.Write(bytes.ReplaceAll(chunk, []byte("\n"), nil))
	}
	out := make([]byte, 0, line.Len()+32)
	out = append(out, "data: "...)
	out = append(out, line.Bytes()...)
	return append(out, "\n\ndata: [DONE]\n\n"...)
}

// chunkChoice returns ch, a choice of a whole chat completion, as a
// chunk's: its message as its delta, each tool call with its index; ch
// as it is when it is not an object.
func chunkChoice(ch gjson.Result) []byte {
	out := []byte(ch.Raw)
	delta := []byte(ch.Get("message").Raw)
	if len(delta) == 0 {
		delta = []byte("{}")
	}
	if calls := ch.Get("message.tool_calls"); calls.IsArray() {
		indexed := make([]byte, 0, len(calls.Raw)+16)
		indexed = append(indexed, '[')
		for j, tc := range calls.Array() {
			if j > 0 {
				indexed = append(indexed, ',')
			}
			if d, err := sjson.SetBytes([]byte(tc.Raw), "index", j); err == nil {
				indexed = append(indexed, d...)
			} else {
				indexed = append(indexed, tc.Raw...)
			}
		}
		if d, err := sjson.SetRawBytes(delta, "tool_calls", append(indexed, ']')); err == nil {
			delta = d
		}
	}
	if d, err := sjson.SetRawBytes(out, "delta", delta); err == nil {
		out = d
	}
	if d, err := sjson.DeleteBytes(out, "message"); err == nil {
		out = d
	}
	return out
}
