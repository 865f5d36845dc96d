package wire

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/tidwall/sjson"
)

// Servers that refuse stream_options.
//
// The client asks a stream for its usage (stream_options.include_usage)
// unless the caller's request says otherwise. Some servers refuse the
// field and the whole request with it, where bare openai-go, which sends
// no such field, gets its answer: Azure OpenAI before API version
// 2024-10-21 answers 400, "Unrecognized request argument supplied:
// stream_options" or "Unknown parameter: 'stream_options'."
// (MicrosoftDocs/azure-docs#123088, songquanpeng/one-api#1423,
// jamesrochabrun/SwiftOpenAI#67); so do gateways relaying to such an
// upstream (QuantumNous/new-api#418), and servers whose request schema
// forbids unknown fields answer 422. Such a request is sent again at once
// without the field, and later requests to that server go without it:
// its streams then report no usage, and Timing counts their output
// deltas instead.

// NoStreamOptions is the set of servers known to refuse stream_options,
// each named by its host and port and the API version its requests name
// (Azure's api-version query parameter), which decides what it accepts.
// Its methods are safe for concurrent use; the nil set holds none and
// learns nothing.
type NoStreamOptions struct {
	m    sync.Map
	some atomic.Bool // one was learnt: until then no request is looked up
}

// serverOf names the server req is sent to.
func serverOf(req *http.Request) string {
	return req.URL.Host + "?" + req.URL.Query().Get("api-version")
}

// Refuses reports whether the server of req refuses stream_options.
func (s *NoStreamOptions) Refuses(req *http.Request) bool {
	if s == nil || !s.some.Load() {
		return false
	}
	_, ok := s.m.Load(serverOf(req))
	return ok
}

// Learn notes that the server of req refused stream_options.
func (s *NoStreamOptions) Learn(req *http.Request) {
	if s != nil {
		s.m.Store(serverOf(req), struct{}{})
		s.some.Store(true)
	}
}

// RefusedStreamOptions reports whether res, the answer to a request that
// held stream_options, refuses the field: a status 400 or 422 whose error
// body names it. It reads the body, bounded already (BoundErrorBody), and
// puts it back.
func RefusedStreamOptions(res *http.Response) bool {
	if res == nil || res.Body == nil || (res.StatusCode != http.StatusBadRequest && res.StatusCode != http.StatusUnprocessableEntity) {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxErrorBody+errorHead))
	_ = res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	return err == nil && bytes.Contains(body, []byte("stream_options"))
}

// WithoutStreamOptions returns body, a request's JSON, without its
// stream_options member, and whether it had one.
func WithoutStreamOptions(body []byte) ([]byte, bool) {
	out, err := sjson.DeleteBytes(body, "stream_options")
	if err != nil || len(out) == len(body) {
		return body, false
	}
	return out, true
}
