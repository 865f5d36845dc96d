package simulate

import (
	"encoding/json"
	"strconv"
)

// usage is the token accounting of a response, as OpenAI's CompletionUsage.
type usage struct {
	prompt, completion, cached int
}

func (u usage) append(b []byte) []byte {
	b = append(b, `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(u.prompt), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(u.completion), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(u.prompt+u.completion), 10)
	b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
	b = strconv.AppendInt(b, int64(u.cached), 10)
	return append(b, `}}`...)
}

// appendString appends s as a JSON string. Printable ASCII, line breaks
// and tabs (generated text) are copied here, quotes, backslashes and
// control characters escaped as encoding/json escapes them; a string with
// anything else goes through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c > 0x7e {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '"':
			esc = `\"`
		case '\\':
			esc = `\\`
		case '\n':
			esc = `\n`
		case '\r':
			esc = `\r`
		case '\t':
			esc = `\t`
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, esc...)
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// format writes the bodies of one endpoint's responses: the SSE events of a
// stream and the JSON of a whole response. Every method appends to b.
type format interface {
	// role appends the role-only event (nothing for text completions).
	role(b []byte) []byte
	// token appends an event carrying text and, unless lps is nil, the
	// log-probabilities of its tokens.
	token(b []byte, text string, lps []tokenLogprob) []byte
	// finish appends the event carrying the finish reason.
	finish(b []byte, reason string) []byte
	// usage appends the usage event (choices: []).
	usage(b []byte, u usage) []byte
	// whole appends a non-streaming response, with the log-probabilities
	// of its tokens unless lps is nil.
	whole(b []byte, text, reason string, u usage, lps []tokenLogprob) []byte
	// toolCalls appends an event carrying pieces of tool calls.
	toolCalls(b []byte, calls []callDelta) []byte
	// wholeCalls appends a non-streaming response whose reply is tool
	// calls.
	wholeCalls(b []byte, calls []callDelta, reason string, u usage) []byte
	// done appends what ends a stream after the finish and usage events.
	done(b []byte) []byte
	// errorEvent appends an event reporting e mid-stream.
	errorEvent(b []byte, e *apiError) []byte
}

const (
	eventStart = "data: "
	eventEnd   = "\n\n"
	doneEvent  = "data: [DONE]\n\n"
)

// head is the part of every chunk before "choices": id, object, created
// and model, as a JSON object's opening.
func head(id, object string, created int64, model string) []byte {
	b := []byte(`{"id":`)
	b = appendString(b, id)
	b = append(b, `,"object":`...)
	b = appendString(b, object)
	b = append(b, `,"created":`...)
	b = strconv.AppendInt(b, created, 10)
	b = append(b, `,"model":`...)
	b = appendString(b, model)
	return b
}

// heads are a format's precomputed openings, shared by both endpoints.
type heads struct {
	chunkHead []byte // head of a chunk, through the choice's content key
	usageHead []byte // head of the usage chunk, through `"choices":[]`
	wholeHead []byte // head of a whole response
	usageNull bool   // chunks carry "usage":null (include_usage was asked)
}

// endChunk appends the end of a streamed chunk after its choice's content:
// logprobs (null), then as closeChunk.
func (h *heads) endChunk(b []byte, reason string) []byte {
	return h.closeChunk(append(b, `,"logprobs":null`...), reason)
}

// closeChunk appends the end of a streamed chunk after its choice's
// logprobs: the finish reason (null while reason is empty), and
// "usage":null when include_usage was asked.
func (h *heads) closeChunk(b []byte, reason string) []byte {
	b = append(b, `,"finish_reason":`...)
	if reason == "" {
		b = append(b, `null`...)
	} else {
		b = appendString(b, reason)
	}
	b = append(b, `}]`...)
	if h.usageNull {
		b = append(b, `,"usage":null`...)
	}
	return append(b, "}"+eventEnd...)
}

func (h *heads) usage(b []byte, u usage) []byte {
	b = append(b, eventStart...)
	b = append(b, h.usageHead...)
	b = append(b, `,"usage":`...)
	b = u.append(b)
	return append(b, "}"+eventEnd...)
}

// endWhole appends the end of a whole response after its choice's content:
// logprobs (null), then as closeWhole.
func endWhole(b []byte, reason string, u usage) []byte {
	return closeWhole(append(b, `,"logprobs":null`...), reason, u)
}

// closeWhole appends the end of a whole response after its choice's
// logprobs: the finish reason and the usage.
func closeWhole(b []byte, reason string, u usage) []byte {
	b = append(b, `,"finish_reason":`...)
	b = appendString(b, reason)
	b = append(b, `}],"usage":`...)
	b = u.append(b)
	return append(b, "}\n"...)
}

// chatFormat formats /v1/chat/completions responses. Its chunkHead ends
// with `"choices":[{"index":0,"delta":{`.
type chatFormat struct{ heads }

func newChatFormat(id string, created int64, model string, includeUsage bool) *chatFormat {
	h := head(id, "chat.completion.chunk", created, model)
	return &chatFormat{heads{
		chunkHead: append(append([]byte(nil), h...), `,"choices":[{"index":0,"delta":{`...),
		usageHead: append(append([]byte(nil), h...), `,"choices":[]`...),
		wholeHead: head(id, "chat.completion", created, model),
		usageNull: includeUsage,
	}}
}

func (f *chatFormat) role(b []byte) []byte {
	b = append(b, eventStart...)
	b = append(b, f.chunkHead...)
	b = append(b, `"role":"assistant","content":""}`...)
	return f.endChunk(b, "")
}

func (f *chatFormat) token(b []byte, text string, lps []tokenLogprob) []byte {
	b = append(b, eventStart...)
	b = append(b, f.chunkHead...)
	b = append(b, `"content":`...)
	b = appendString(b, text)
	if lps == nil {
		return f.endChunk(append(b, '}'), "")
	}
	return f.closeChunk(appendChatLogprobs(append(b, '}'), lps), "")
}

// appendChatLogprobs appends a chat choice's logprobs: the entries of its
// content's tokens, no refusal.
func appendChatLogprobs(b []byte, lps []tokenLogprob) []byte {
	b = append(b, `,"logprobs":{"content":`...)
	b = appendEntries(b, lps, withBytes)
	return append(b, `,"refusal":null}`...)
}

func (f *chatFormat) finish(b []byte, reason string) []byte {
	b = append(b, eventStart...)
	b = append(b, f.chunkHead...)
	return f.endChunk(append(b, '}'), reason)
}

func (f *chatFormat) toolCalls(b []byte, calls []callDelta) []byte {
	b = append(b, eventStart...)
	b = append(b, f.chunkHead...)
	b = append(b, `"tool_calls":[`...)
	for i, c := range calls {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"index":`...)
		b = strconv.AppendInt(b, int64(c.index), 10)
		if c.start {
			b = append(b, `,"id":`...)
			b = appendString(b, c.id)
			b = append(b, `,"type":"function","function":{"name":`...)
			b = appendString(b, c.name)
			b = append(b, `,"arguments":`...)
		} else {
			b = append(b, `,"function":{"arguments":`...)
		}
		b = appendString(b, c.args)
		b = append(b, `}}`...)
	}
	return f.endChunk(append(b, `]}`...), "")
}

func (f *chatFormat) wholeCalls(b []byte, calls []callDelta, reason string, u usage) []byte {
	b = append(b, f.wholeHead...)
	b = append(b, `,"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[`...)
	for i, c := range calls {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = appendString(b, c.id)
		b = append(b, `,"type":"function","function":{"name":`...)
		b = appendString(b, c.name)
		b = append(b, `,"arguments":`...)
		b = appendString(b, c.args)
		b = append(b, `}}`...)
	}
	b = append(b, `],"refusal":null}`...)
	return endWhole(b, reason, u)
}

func (f *chatFormat) done(b []byte) []byte { return append(b, doneEvent...) }

func (f *chatFormat) errorEvent(b []byte, e *apiError) []byte { return dataErrorEvent(b, e) }

// dataErrorEvent appends e as an event whose data is the error body, as
// OpenAI reports a failure in a chat or completions stream.
func dataErrorEvent(b []byte, e *apiError) []byte {
	b = append(b, eventStart...)
	b = append(b, errorBody(e)...)
	return append(b, eventEnd...)
}

func (f *chatFormat) whole(b []byte, text, reason string, u usage, lps []tokenLogprob) []byte {
	b = append(b, f.wholeHead...)
	b = append(b, `,"choices":[{"index":0,"message":{"role":"assistant","content":`...)
	b = appendString(b, text)
	b = append(b, `,"refusal":null}`...)
	if lps == nil {
		return endWhole(b, reason, u)
	}
	return closeWhole(appendChatLogprobs(b, lps), reason, u)
}

// textFormat formats /v1/completions responses. Its chunkHead ends with
// `"choices":[{"index":0,"text":`. It counts the text_offset of the
// tokens it sends log-probabilities of, so one is made per response.
type textFormat struct {
	heads
	offset int // characters before the next token: the prompt's, and the text's so far
}

// newTextFormat returns the format of a completion whose text follows
// offset characters (the prompt's when it is not echoed).
func newTextFormat(id string, created int64, model string, includeUsage bool, offset int) *textFormat {
	h := head(id, "text_completion", created, model)
	return &textFormat{heads: heads{
		chunkHead: append(append([]byte(nil), h...), `,"choices":[{"index":0,"text":`...),
		usageHead: append(append([]byte(nil), h...), `,"choices":[]`...),
		wholeHead: h,
		usageNull: includeUsage,
	}, offset: offset}
}

func (f *textFormat) event(b []byte, text, reason string, lps []tokenLogprob) []byte {
	b = append(b, eventStart...)
	b = append(b, f.chunkHead...)
	b = appendString(b, text)
	if lps == nil {
		return f.endChunk(b, reason)
	}
	b = append(b, `,"logprobs":`...)
	b, f.offset = appendLegacyLogprobs(b, lps, f.offset)
	return f.closeChunk(b, reason)
}

func (f *textFormat) role(b []byte) []byte { return b }

func (f *textFormat) token(b []byte, text string, lps []tokenLogprob) []byte {
	return f.event(b, text, "", lps)
}

func (f *textFormat) finish(b []byte, reason string) []byte { return f.event(b, "", reason, nil) }

// toolCalls appends nothing: legacy completions make no tool calls.
func (f *textFormat) toolCalls(b []byte, _ []callDelta) []byte { return b }

// wholeCalls appends an empty completion: legacy completions make no tool
// calls.
func (f *textFormat) wholeCalls(b []byte, _ []callDelta, reason string, u usage) []byte {
	return f.whole(b, "", reason, u, nil)
}

func (f *textFormat) done(b []byte) []byte { return append(b, doneEvent...) }

func (f *textFormat) errorEvent(b []byte, e *apiError) []byte { return dataErrorEvent(b, e) }

func (f *textFormat) whole(b []byte, text, reason string, u usage, lps []tokenLogprob) []byte {
	b = append(b, f.wholeHead...)
	b = append(b, `,"choices":[{"index":0,"text":`...)
	b = appendString(b, text)
	if lps == nil {
		return endWhole(b, reason, u)
	}
	b = append(b, `,"logprobs":`...)
	b, f.offset = appendLegacyLogprobs(b, lps, f.offset)
	return closeWhole(b, reason, u)
}
