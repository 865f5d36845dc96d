package sse

import "github.com/tidwall/gjson"

// A JSON document printed over many lines in place of a stream.
//
// OpenAI prints a non-streamed answer over many lines, a member a line
// with a two-space indent, the first line "{" alone. A gateway that
// answers a streamed request whole passes it on so: Cloudflare AI Gateway
// with Guardrails on buffers the provider's answer and returns one
// non-streamed payload (cloudflare/cloudflare-docs
// src/content/docs/ai-gateway/features/guardrails/usage-considerations.mdx,
// "Streaming behavior"). Unframed then holds "{", no answer.

// UnframedDocument returns the whole of a body read with Sniff that is no
// event stream, after Next returned ErrNotEventStream, when its first line
// (Unframed) opens a JSON object it does not close: that line and every
// line after it to the end of the body, joined by line breaks. Any other
// first line is returned as it is, and nothing more is read. It reads no
// more than the limit on a line in all: ErrEventTooLong past it. The
// result is valid until the next call of Next.
func (r *Reader) UnframedDocument() ([]byte, error) {
	if len(r.data) == 0 || r.data[0] != '{' || gjson.ValidBytes(r.data) {
		return r.data, nil
	}
	for r.sc.Scan() {
		line := r.sc.Bytes()
		if len(r.data)+1+len(line) > r.max {
			return nil, ErrEventTooLong
		}
		r.data = append(append(r.data, '\n'), line...)
	}
	if err := r.sc.Err(); err != nil {
		return nil, err
	}
	return r.data, nil
}
