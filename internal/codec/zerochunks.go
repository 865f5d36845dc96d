package codec

import "github.com/openai/openai-go/v3"

// Chunks written from openai-go's zero value, which never finish.
//
// Nexa SDK's server (NexaAI/nexa-sdk runner/server/handler/chat.go, as of
// February 2026) writes each token as an openai-go ChatCompletionChunk
// with only its delta's content and role set, through gin's SSEvent,
// which encodes the whole struct with encoding/json: every zero value is
// written out, id "", created 0, model "", service_tier "" and
// finish_reason "". No chunk ever carries a finish reason: after the last
// token come the usage chunk, when asked for, and [DONE], or, when the
// generation failed, an error event and no [DONE]. Read as any other
// stream, every answer was a cut one (KindTruncated "no finish_reason"),
// and a Router carried on an answer that was whole.

// ZeroChunkStream decodes a chat stream as TGIToolStream does, and
// follows what it needs to tell, at [DONE], an answer of such a server
// (see AtDone): whether every chunk so far was written from the zero
// value (see zeroChunk), whether a choice finished, and whether the
// answer had any output.
type ZeroChunkStream struct {
	TGIToolStream
	zero shapeWatch // every chunk so far was written from the zero value
}

// Decode decodes the next event of the stream.
func (s *ZeroChunkStream) Decode(data []byte) (Event, error) {
	ev, err := s.TGIToolStream.Decode(data)
	if err == nil {
		s.zero.watch(ev, zeroChunk)
	}
	return ev, err
}

// AtDone returns the finish such a server leaves out: at [DONE], an event
// whose one choice finished for "tool_calls" after a tool call (Nexa's
// server sends the call whole, parsed from the model's text, at the end
// of the answer), else "stop", when every chunk was written from the
// zero value, no choice finished and some output came; else what
// TGIToolStream returns.
func (s *ZeroChunkStream) AtDone() (ev Event, ok bool) {
	if !s.zero.due() {
		return s.TGIToolStream.AtDone()
	}
	return s.zero.finish(&s.chat, "")
}

// zeroChunk reports whether c was written from openai-go's zero value by
// encoding/json: no id, created or model, and service_tier the empty
// string, which is none of the API's values (those are a tier's name or
// null).
func zeroChunk(c *openai.ChatCompletionChunk) bool {
	return c.ID == "" && c.Created == 0 && c.Model == "" && c.JSON.ServiceTier.Raw() == `""`
}
