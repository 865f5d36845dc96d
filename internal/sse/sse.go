// Package sse splits a text/event-stream body into the data of its events,
// telling a stream that ended after a whole event from one cut short, and
// bounding what one event may take.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/tidwall/gjson"
)

// ErrEventTooLong ends a stream whose event's data, joined over its lines,
// exceeds the limit on a line.
var ErrEventTooLong = fmt.Errorf("tokenpace: event data longer than the limit: %w", bufio.ErrTooLong)

// ErrNotEventStream ends a body read with Sniff whose first line is no
// field of the event-stream format, or that ends before any line.
var ErrNotEventStream = errors.New("tokenpace: the body is not an event stream")

// ErrorLine ends a stream that sent an error outside any data field,
// which the format would drop unseen:
//   - as a field of its own, "error: {...}": llama.cpp's server until
//     September 2025 (ggml-org/llama.cpp#16109), which then sends
//     [DONE], so that the stream would end clean and empty;
//   - as a bare JSON object holding an "error" member, the error body of
//     an upstream relayed without framing (lemonade-sdk/lemonade#2826),
//     or a JSON error sent in answer to a streaming request;
//   - as a bare JSON object that is a platform's status (see
//     StatusError): iFlytek's failures in a 200 stream;
//   - as a bare line of text (see Text) that ends the body, no field of
//     the format and no line break after it: xLLM sends its 200 event stream's
//     headers before it looks at a streamed request, and then writes
//     any refusal, or a failure mid-answer, as its message alone
//     (jd-opensource/xllm xllm/api_service/stream_call.h,
//     StreamCall::finish_with_error), which the format would drop.
//
// Data is the field's value, the whole object, or the text.
type ErrorLine struct {
	Data  []byte
	Field bool // "error: ..."; else a bare object, or text (Text)
	Text  bool // a bare line of text that ended the body
}

func (e *ErrorLine) Error() string { return "tokenpace: an error outside the event stream's data" }

// Reader splits a text/event-stream body into the data of its events.
// openai-go's own decoder does the same but neither reports whether the
// stream ended with [DONE] nor takes a line limit, which a client that must
// tell a truncated stream from a finished one needs.
type Reader struct {
	sc       *bufio.Scanner
	max      int    // the largest event's data
	data     []byte // the current event's data, reused between events
	has      bool   // the current event has a data field
	named    bool   // the current event is named "error" (ErrorEvent)
	note     []byte // the comments of an error event, while it has no data (see noted)
	consumed int64  // bytes of the body split into lines so far (Consumed)
	broken   bool   // the last line ended with a line break
	cr       bool   // the last line ended with a CR: a LF next is its own
	sniff    bool   // the first line must be a field of the format (Sniff)
	jsonl    bool   // the body is JSON lines, not events (JSONLines)

	framing    framing  // how the body separates its events (see framing)
	dispatched bool     // the last event was dispatched at its data line (see early)
	follows    follower // the line after the last, while the framing is unknown (see early)
}

// Sniff makes the Reader check that the body is an event stream, for a
// body whose Content-Type does not say so: some servers label their
// streams application/json, text/plain or application/x-ndjson (Foundry
// Local: microsoft/foundry-dev-tools#195; ramalama's RAG proxy:
// containers/ramalama#2837; LitServe: Lightning-AI/LitServe#359), which
// openai-go reads all the same. Next then returns ErrNotEventStream for a
// body whose first line is no field (data, event, id, retry) nor comment,
// as a JSON object or an HTML page is not. A body that ends before any
// line is io.EOF, as an event stream's: an answer that ended before it
// began, whatever it was labelled (Ollama, under concurrent requests,
// answers some with status 200, application/x-ndjson and no byte).
func (r *Reader) Sniff() { r.sniff = true }

// Unframed returns the first line of a body read with Sniff that is no
// event stream, after Next returned ErrNotEventStream: a JSON object, an
// HTML page's first line. It is valid until the next call of Next.
func (r *Reader) Unframed() []byte { return r.data }

// NewReader returns a Reader of r whose lines, and events' data, are at
// most maxLine bytes long.
func NewReader(r io.Reader, maxLine int) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(4096, maxLine)), maxLine)
	sr := &Reader{sc: sc, max: maxLine}
	sc.Split(sr.lines)
	return sr
}

// lines splits the body into lines as the event-stream format does: a
// line ends with CRLF, LF or CR alone (which no server we know sends, but
// the format allows), and a byte order mark before the first is dropped.
// A CR that ends what has arrived ends its line at once, so that an event
// is not held until more bytes come; a LF that then follows is skipped.
// Skipped bytes go with the line after them: a split function that
// advances without a token makes the Scanner read more before it splits
// what it holds. It counts the bytes it consumes and notes whether the
// last line ended with a line break, and, while an event stream's framing
// is not known, what line the bytes read after it begin (see following).
func (r *Reader) lines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	skip := 0
	switch {
	case r.consumed == 0 && len(data) < len(bom) && !atEOF && bytes.HasPrefix(bom, data):
		return 0, nil, nil // the start of a byte order mark, maybe
	case r.consumed == 0 && bytes.HasPrefix(data, bom):
		skip = len(bom)
	case r.cr && len(data) > 0 && data[0] == '\n':
		skip = 1
	}
	line := data[skip:]
	end, next := lineEnd(line)
	switch {
	case end < 0 && atEOF && len(line) > 0:
		end, next = len(line), len(line)
	case end < 0:
		return 0, nil, nil
	}
	r.consumed += int64(skip + next)
	r.broken = next > end
	r.cr = next == end+1 && line[end] == '\r'
	if r.framing == framingUnknown && !r.jsonl {
		r.follows = following(line[next:], r.cr)
	}
	return skip + next, line[:end], nil
}

// bom is UTF-8's byte order mark, which the format allows before the
// first line.
var bom = []byte("\xef\xbb\xbf")

// lineEnd returns where data's first line ends and where the next one
// starts; -1, -1 when no line break has arrived.
func lineEnd(data []byte) (end, next int) {
	lf := bytes.IndexByte(data, '\n')
	within := data
	if lf >= 0 {
		within = data[:lf]
	}
	switch cr := bytes.IndexByte(within, '\r'); {
	case cr >= 0 && cr == lf-1:
		return cr, lf + 1 // CRLF
	case cr >= 0:
		return cr, cr + 1 // CR alone, or last of what has arrived
	case lf >= 0:
		return lf, lf + 1
	}
	return -1, -1
}

// Next returns the data of the next event, valid until the following call.
// Multi-line data is joined with newlines, but in a body that sends one
// data line per event and no blank line (see framing), where each line is
// an event; comments, ids and retry fields
// are skipped, and so are events whose data is blank (see blank). An
// event's name is skipped too, but for "error" (see ErrorEvent), whose
// comments are its data when it has none (see noted). At the end of the
// body it returns io.EOF, or the
// read error (bufio.ErrTooLong for an over-long line, ErrEventTooLong for
// an event whose data over all its lines is longer). A last event whose
// lines are whole but that no blank line follows ("data: [DONE]\n" and
// the end, as some servers send) is dispatched: the format would drop it,
// but its data arrived whole; a last line cut short is not, but for
// "data: [DONE]" itself, which KoboldCpp ends its streams with and no line
// break (koboldcpp.py's send_oai_sse_event), and which no cut can make of
// another line.
func (r *Reader) Next() ([]byte, error) {
	r.data, r.has, r.named, r.note = r.data[:0], false, false, r.note[:0]
	if r.jsonl {
		return r.nextLine()
	}
	for r.sc.Scan() {
		line := r.sc.Bytes()
		name, value, _ := bytes.Cut(line, []byte{':'})
		if r.dispatched {
			r.learn(line, name)
		}
		if len(line) == 0 {
			if r.has && r.framing == framingUnknown {
				// An event a blank line ends: the format's framing.
				r.framing = framingBlank
			}
			if r.has && !blank(r.data) {
				return r.data, nil
			}
			if r.noted() {
				return r.note, nil
			}
			r.data, r.has, r.named, r.note = r.data[:0], false, false, r.note[:0]
			continue
		}
		if el := errorLine(line); el != nil {
			return nil, el
		}
		if r.sniff {
			if !isField(name) {
				r.data = append(r.data[:0], line...)
				return nil, ErrNotEventStream
			}
			r.sniff = false
		}
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		if string(name) == "event" {
			r.named = string(value) == "error"
		}
		if len(name) == 0 && r.named && !r.has {
			if len(r.note)+1+len(value) > r.max {
				return nil, ErrEventTooLong
			}
			if len(r.note) > 0 {
				r.note = append(r.note, '\n')
			}
			r.note = append(r.note, value...)
			continue
		}
		if string(name) != "data" {
			if !r.broken && bareText(line, name) {
				return nil, &ErrorLine{Data: bytes.Clone(line), Text: true}
			}
			continue
		}
		if r.early(value) {
			r.data, r.dispatched = append(r.data, value...), true
			return r.data, nil
		}
		if len(r.data)+1+len(value) > r.max {
			return nil, ErrEventTooLong
		}
		if r.has {
			r.data = append(r.data, '\n')
		}
		r.data = append(r.data, value...)
		r.has = true
	}
	if err := r.sc.Err(); err != nil {
		return nil, err
	}
	if r.has && (r.broken || whole(r.data)) && !blank(r.data) {
		r.has = false
		return r.data, nil
	}
	if r.broken && r.noted() {
		return r.note, nil
	}
	return nil, io.EOF
}

// noted reports whether the current event is an error event without data
// whose comment lines say something: NVIDIA Dynamo's frontend sent a
// failure of the stream so before ai-dynamo/dynamo#8430 (April 2026),
// "event: error" and ": <message>" (lib/llm/src/http/service/disconnect.rs,
// monitor_for_disconnects), which the format drops for want of data, so
// that the stream looked cut, its message lost. Its comments are then its
// data. Comments of any other event are skipped, and cost nothing.
func (r *Reader) noted() bool { return !r.has && r.named && !blank(r.note) }

// Unterminated reports whether the event Next returned last ended the
// body on a line with no line break after it: "data: [DONE]" and the
// end, as KoboldCpp, Kong's ai-proxy and Jan's cortex.cpp write it.
func (r *Reader) Unterminated() bool { return !r.broken }

// ErrorEvent reports whether the event Next returned last was named
// "error" ("event: error"): a failure the server reports, whatever its
// data holds. OpenAI's Responses streams name their error events so, with
// the error in the data; FMS Guardrails Orchestrator's chat endpoint sends
// a bare {"code":…,"details":…} under that name
// (foundation-model-stack/fms-guardrails-orchestrator#410), which decodes
// as an empty chunk.
func (r *Reader) ErrorEvent() bool { return r.named }

// blank reports whether an event's data is empty or white space only: a
// keep-alive some relays send ("data:" and a blank line), which the
// format does not dispatch when empty, and which no API's event is.
func blank(data []byte) bool { return len(bytes.TrimSpace(data)) == 0 }

// Consumed returns how many bytes of the body were split into lines so
// far: bytes read past them wait in the Reader's buffer.
func (r *Reader) Consumed() int64 { return r.consumed }

// errorLine returns the error line is, if it is one (see ErrorLine).
func errorLine(line []byte) *ErrorLine {
	switch {
	case bytes.HasPrefix(line, []byte("error:")):
		value := bytes.TrimPrefix(line[len("error:"):], []byte{' '})
		return &ErrorLine{Data: bytes.Clone(value), Field: true}
	case line[0] == '{':
		if e := gjson.GetBytes(line, "error"); (e.Exists() && e.Type != gjson.Null) || StatusError(line) {
			return &ErrorLine{Data: bytes.Clone(line)}
		}
	}
	return nil
}

// bareText reports whether line, whose text before its first colon is
// name, and which ended the body with no line break after it, is a bare
// line of text (see ErrorLine): no field of the format nor a comment, no
// start of one that a cut could have left ("da", "eve", or "err" of the
// error field errorLine reads), and a line of text as Text reads one, so
// that a line a reset cut (an unframed JSON object), binary bytes or a
// line of megabytes stay what they were, the end of a stream cut short.
// Only a last line is looked at, so that a body's well-formed lines cost
// nothing more.
func bareText(line, name []byte) bool {
	if isField(name) || !isText(bytes.TrimSpace(line)) {
		return false
	}
	for _, f := range [...]string{"data:", "event:", "id:", "retry:", "error:"} {
		if len(line) < len(f) && f[:len(line)] == string(line) {
			return false
		}
	}
	return true
}

// isField reports whether name, a line's text before its first colon, is
// a field of the event-stream format or a comment's (empty).
func isField(name []byte) bool {
	switch string(name) {
	case "", "data", "event", "id", "retry":
		return true
	}
	return false
}

// whole reports whether the data of a last line cut short is whole all
// the same, as no cut of another line could give it: "data: [DONE]",
// which KoboldCpp ends its streams with and no line break
// (koboldcpp.py's send_oai_sse_event), and a whole JSON object, which Kong's
// ai-proxy sends with no line break as the only event of a stream it
// cannot read, its error {"error": true, "message": …}
// (kong/llm/plugin/shared-filters/normalize-sse-chunk.lua, ERROR__NOT_SET).
// A cut line ends inside its object, which is then not valid JSON.
func whole(data []byte) bool {
	return string(data) == "[DONE]" || (len(data) > 0 && data[0] == '{' && gjson.ValidBytes(data))
}
