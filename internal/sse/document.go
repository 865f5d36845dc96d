package sse

import "errors"

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
// and a read that fails, its error. The result is valid until the next
// call of Next.
func (r *Reader) UnframedDocument() ([]byte, error) {
	var j JSONCloser
	j.feedBytes(r.data)
	if j.ended() {
		return r.data, nil
	}
	for !j.ended() && r.sc.Scan() {
		line := r.sc.Bytes()
		if len(r.data)+1+len(line) > r.max {
			return nil, ErrEventTooLong
		}
		r.data = append(append(r.data, '\n'), line...)
		j.feedBytes(line)
	}
	if err := r.sc.Err(); err != nil {
		return nil, err
	}
	if !j.ended() {
		return nil, ErrDocumentCut
	}
	return r.data, nil
}
