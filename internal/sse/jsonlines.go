package sse

import "io"

// JSON lines in place of events.
//
// DJL Serving's LMI container answers a streamed chat request with JSON
// lines, labelled application/jsonlines: each chunk a bare JSON object
// and a line break, no data field, no [DONE]
// (deepjavalibrary/djl-serving, djl_python/output_formatter.py,
// _jsonlines_chat_output_formatter; lmi_vllm/request_response_utils.py,
// vllm_stream_output_formatter, which cuts "data: " off vLLM's events).
// Read as an event stream, its first line is no field of the format.

// JSONLines makes the Reader, after Next returned ErrNotEventStream,
// read the rest of the body as JSON lines: each line that is not blank is
// one event's data. Its caller has read the first line with Unframed and
// found it a chunk of its API. A line holding an "error" member ends the
// stream as an ErrorLine, as in an event stream; a last line cut short,
// which is not whole JSON, is dropped, as a cut event is.
func (r *Reader) JSONLines() { r.jsonl = true }

// nextLine returns the next line of a body read as JSON lines (see
// JSONLines).
func (r *Reader) nextLine() ([]byte, error) {
	for r.sc.Scan() {
		line := r.sc.Bytes()
		if blank(line) {
			continue
		}
		if el := errorLine(line); el != nil {
			return nil, el
		}
		if !r.broken && !whole(line) {
			break // the body ended inside its last line
		}
		r.data = append(r.data[:0], line...)
		return r.data, nil
	}
	if err := r.sc.Err(); err != nil {
		return nil, err
	}
	return nil, io.EOF
}
