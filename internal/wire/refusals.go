package wire

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/tidwall/sjson"
)

// Fields a server refused.
//
// The client adds to some requests what the caller did not write: it
// asks a stream for its usage (stream_options.include_usage) unless the
// caller's request says otherwise, and gives back to a server what it
// sent with a tool call's turn (see CallExtras). Some servers refuse such
// a field and the whole request with it, where bare openai-go, which
// sends no such field, gets its answer: Azure OpenAI before API version
// 2024-10-21 answers 400, "Unrecognized request argument supplied:
// stream_options" or "Unknown parameter: 'stream_options'."
// (MicrosoftDocs/azure-docs#123088, songquanpeng/one-api#1423,
// jamesrochabrun/SwiftOpenAI#67); so do gateways relaying to such an
// upstream (QuantumNous/new-api#418), and servers whose request schema
// forbids unknown fields answer 422. A request refused for a field the
// client added is sent again at once without it, and later requests to
// that server go without it: a stream then reports no usage, and Timing
// counts its output deltas instead.

// StreamOptions is the request field that asks a stream for its usage.
const StreamOptions = "stream_options"

// RefusedFields is the set of fields servers refused, each server named
// by its host and port and the API version its requests name (Azure's
// api-version query parameter), which decides what it accepts. Its
// methods are safe for concurrent use; the nil set holds none and learns
// nothing.
type RefusedFields struct {
	m    sync.Map // of refusal
	some atomic.Bool
}

type refusal struct{ server, field string }

// serverOf names the server req is sent to.
func serverOf(req *http.Request) string {
	return req.URL.Host + "?" + req.URL.Query().Get("api-version")
}

// Refuses reports whether the server of req refused field.
func (s *RefusedFields) Refuses(req *http.Request, field string) bool {
	if s == nil || !s.some.Load() {
		return false // nothing learnt: no request is looked up
	}
	_, ok := s.m.Load(refusal{serverOf(req), field})
	return ok
}

// Learn notes that the server of req refused field.
func (s *RefusedFields) Learn(req *http.Request, field string) {
	if s != nil {
		s.m.Store(refusal{serverOf(req), field}, struct{}{})
		s.some.Store(true)
	}
}

// RefusedField returns the first of fields, those the client added to the
// request that res answers, that res refuses: a status 400 or 422 whose
// error body names it; "" when it refuses none. It reads the body,
// bounded already (BoundErrorBody), and puts it back.
func RefusedField(res *http.Response, fields []string) string {
	if len(fields) == 0 || res == nil || res.Body == nil || (res.StatusCode != http.StatusBadRequest && res.StatusCode != http.StatusUnprocessableEntity) {
		return ""
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxErrorBody+errorHead))
	_ = res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return ""
	}
	for _, f := range fields {
		if bytes.Contains(body, []byte(f)) {
			return f
		}
	}
	return ""
}

// WithoutStreamOptions returns body, a request's JSON, without its
// stream_options member, and whether it had one.
func WithoutStreamOptions(body []byte) ([]byte, bool) {
	out, err := sjson.DeleteBytes(body, StreamOptions)
	if err != nil || len(out) == len(body) {
		return body, false
	}
	return out, true
}
