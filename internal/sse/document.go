package sse

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// A JSON document printed over many lines in place of a stream.
//
// OpenAI prints a non-streamed answer over many lines, a member a line
// with a two-space indent, the first line "{" alone. A gateway that
// answers a streamed request whole passes it on so: Cloudflare AI Gateway
// with Guardrails on buffers the provider's answer and returns one
// non-streamed payload (cloudflare/cloudflare-docs
// src/content/docs/ai-gateway/features/guardrails/usage-considerations.mdx,
// "Streaming behavior"). Unframed then holds "{", no answer.

// ErrDocumentCut ends a body read with UnframedDocument that ended inside
// the JSON object its first line opened: a whole answer cut short.
var ErrDocumentCut = errors.New("tokenpace: the body ended inside a JSON document")

// UnframedDocument returns the whole of a body read with Sniff that is no
// event stream, after Next returned ErrNotEventStream, when its first line
// (Unframed) opens a JSON object it does not close: that line and every
// line after it up to the one that closes the object, joined by line
// breaks; the rest of the body is not read, so that a server that holds
// its response open after the object, or goes on with more, is not waited
// for. Any other first line is returned as it is, and nothing more is
// read. It reads no more than the limit on a line in all: ErrEventTooLong
// past it; a body that ends before the object closes is ErrDocumentCut,
// and a read that fails, its error. Each of these is a document's only
// while what was read is the start of JSON text: a body that begins with
// a brace but is no JSON (a Python dict's repr, a style sheet) is no
// document cut short, and what was read of it is returned, as an HTML
// page's first line is. The result is valid until the next call of Next.
func (r *Reader) UnframedDocument() ([]byte, error) {
	var j JSONCloser
	j.feedBytes(r.data)
	if j.ended() {
		return r.data, nil
	}
	if err := r.readDocument(&j); err != nil && jsonStart(r.data) {
		return nil, err
	}
	return r.data, nil
}

// readDocument appends to r.data the body's lines up to the one with which
// j, that has scanned r.data, ends; its error says why it read no such
// line (see UnframedDocument).
func (r *Reader) readDocument(j *JSONCloser) error {
	for !j.ended() && r.sc.Scan() {
		line := r.sc.Bytes()
		if len(r.data)+1+len(line) > r.max {
			return ErrEventTooLong
		}
		r.data = append(append(r.data, '\n'), line...)
		j.feedBytes(line)
	}
	if err := r.sc.Err(); err != nil {
		return err
	}
	if !j.ended() {
		return ErrDocumentCut
	}
	return nil
}

// jsonStart reports whether data, a body's first lines in which
// JSONCloser saw an object opened and not closed, is the start of a JSON
// text cut short, not text that is no JSON. It runs once, on a body that
// failed to be a document, over no more than the limit on a line.
func jsonStart(data []byte) bool {
	err := json.NewDecoder(bytes.NewReader(data)).Decode(new(struct{}))
	return errors.Is(err, io.ErrUnexpectedEOF)
}

// DocumentError returns the error of doc, what UnframedDocument returned,
// when it is a bare JSON object holding an "error" member or a platform's
// status, as the same object on one line is an ErrorLine: OpenAI prints
// its error bodies over many lines as it prints its answers, and a
// server or gateway that answers a streamed request with one under
// status 200 passes it on so. nil for any other document; its caller
// asks only of one that is no answer.
func DocumentError(doc []byte) *ErrorLine {
	if len(doc) == 0 {
		return nil
	}
	return errorLine(doc)
}
