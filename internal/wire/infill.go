package wire

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// Fill-in-the-middle on llama.cpp's server.
//
// llama.cpp's server drops the suffix of a /v1/completions request (see
// DroppedField); it does fill-in-the-middle at /infill, with the text
// before the cursor as input_prefix and the text after it as
// input_suffix, framed with the model's own fill-in-the-middle tokens, and
// answers in its own format: events {"content", "stop", "stop_type",
// "tokens_predicted", "tokens_evaluated", "timings"} with no [DONE], or
// one such object for a request that does not stream. The client sends a
// fill-in-the-middle request that such a server answered without its
// suffix again to /infill, and later ones to that server straight there,
// and gives the caller the answer as a completion: the same text, a
// finish reason and a usage.

// InfillServers is the set of servers that do fill-in-the-middle at
// /infill only, each named by the caller (the client names a server's
// "host:port" and the model asked of it, as a gateway may serve llama.cpp's
// models beside others). Its methods are safe for concurrent use; the nil
// set holds none and learns nothing.
type InfillServers struct{ m sync.Map }

// Has reports whether server does fill-in-the-middle at /infill only.
func (s *InfillServers) Has(server string) bool {
	if s == nil {
		return false
	}
	_, ok := s.m.Load(server)
	return ok
}

// NoInfill reports whether res, the answer to an /infill request, says
// the server routes no /infill: 404 or 405 (one-api's API), or a 2xx that
// is neither JSON nor an event stream (one-api's web page, which it
// serves for any path it does not route). Any other answer is /infill's,
// an error status included.
func NoInfill(res *http.Response) bool {
	if res == nil {
		return false
	}
	switch ct := res.Header.Get("Content-Type"); {
	case res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusMethodNotAllowed:
		return true
	case res.StatusCode < 300:
		return !strings.HasPrefix(ct, "text/event-stream") && !strings.HasPrefix(ct, "application/json")
	}
	return false
}

// Forget notes that server does not answer at /infill after all (a relay
// in front of llama.cpp's server that routes no other path).
func (s *InfillServers) Forget(server string) {
	if s != nil {
		s.m.Delete(server)
	}
}

// Learn notes that server does fill-in-the-middle at /infill only.
func (s *InfillServers) Learn(server string) {
	if s != nil {
		s.m.Store(server, struct{}{})
	}
}

// infillDropped are the completions fields /infill has no use for, or
// that the client gives the answer by itself (the usage).
var infillDropped = []string{"prompt", "suffix", "max_tokens", "stream_options", "echo", "best_of", "n", "logprobs", "user"}

// ToInfill returns req, a completions request whose body is body, as a
// request to llama.cpp's /infill; req itself and false when it cannot be
// one: a prompt that is not one string, more than one choice, or an echo.
func ToInfill(req *http.Request, body []byte) (*http.Request, bool) {
	var in map[string]json.RawMessage
	if json.Unmarshal(body, &in) != nil {
		return req, false
	}
	var prompt, suffix string
	var echo bool
	n := 1
	if json.Unmarshal(in["prompt"], &prompt) != nil || json.Unmarshal(in["suffix"], &suffix) != nil {
		return req, false
	}
	if raw, ok := in["n"]; ok && string(raw) != "null" && (json.Unmarshal(raw, &n) != nil || n != 1) {
		return req, false
	}
	if raw, ok := in["echo"]; ok && json.Unmarshal(raw, &echo) == nil && echo {
		return req, false
	}
	out := make(map[string]json.RawMessage, len(in)+2)
	for k, v := range in {
		out[k] = v
	}
	if v, ok := in["max_tokens"]; ok && string(v) != "null" {
		out["n_predict"] = v
	}
	for _, k := range infillDropped {
		delete(out, k)
	}
	out["input_prefix"], _ = json.Marshal(prompt)
	out["input_suffix"], _ = json.Marshal(suffix)
	out["prompt"] = json.RawMessage(`""`)
	b, err := json.Marshal(out)
	if err != nil {
		return req, false
	}
	r := req.Clone(req.Context())
	p := strings.TrimSuffix(strings.TrimSuffix(req.URL.Path, "/"), "/completions")
	r.URL.Path = strings.TrimSuffix(p, "/v1") + "/infill"
	r.URL.RawPath = ""
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	return r, true
}

// ErrInfillIgnored is why an /infill answer is refused that evaluated no
// prompt token and made no text: the server took neither input_prefix
// nor input_suffix. ik_llama.cpp's /infill (August 2026) does so: it
// completes the request's prompt, empty, as a plain completion, and its
// stream then stays open after its last event.
var ErrInfillIgnored = errors.New("the server's /infill ignored input_prefix and input_suffix: it evaluated no prompt token")

// FromInfill returns res, llama.cpp's answer to an /infill request made
// for a completions request of model, as the completions answer: an event
// stream's events as completion chunks ending with [DONE], a whole
// answer's JSON as a completion. An error status, or an answer that is
// neither, is returned as it is. maxLine bounds an event's line; a whole
// answer is bounded as any is (see LimitBody), and one that cannot be
// read whole fails every read with the error.
func FromInfill(res *http.Response, model string, maxLine int) *http.Response {
	if res == nil || res.StatusCode >= 300 || res.Body == nil {
		return res
	}
	id := "cmpl-infill-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	created := time.Now().Unix()
	ct := res.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "text/event-stream") {
		if maxLine <= 0 {
			maxLine = bufio.MaxScanTokenSize
		}
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, maxLine)
		res.Body = &infillStream{sc: sc, body: res.Body, id: id, model: model, created: created}
		res.ContentLength = -1
		res.Header.Del("Content-Length")
		return res
	}
	// Read as a whole answer is, whether a stream was asked for or not.
	b, err := io.ReadAll(LimitBody(res.Body))
	_ = res.Body.Close()
	if err != nil {
		res.Body, res.ContentLength = io.NopCloser(failedRead{err}), -1
		res.Header.Del("Content-Length")
		return res
	}
	var ev codec.LlamaCppEvent
	switch {
	case json.Unmarshal(b, &ev) != nil || ev.Content == nil:
	case ev.IgnoredInput():
		b, _ = json.Marshal(map[string]any{"error": map[string]any{
			"message": ErrInfillIgnored.Error(), "type": "invalid_request_error", "param": "suffix", "code": "infill_input_ignored",
		}})
		AsRequestError(res)
	default:
		b = ev.Completion(id, cmp.Or(ev.Model, model), created, true)
	}
	res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	res.Header.Set("Content-Length", strconv.Itoa(len(b)))
	return res
}

// failedRead is a body whose every read fails with err.
type failedRead struct{ err error }

func (b failedRead) Read([]byte) (int, error) { return 0, b.err }

// infillStream reads /infill's events and gives them as completion
// chunks, each as soon as its line has arrived.
type infillStream struct {
	sc        *bufio.Scanner
	body      io.Closer
	out       bytes.Buffer
	id, model string
	created   int64
	done      bool
	events    int   // events read
	err       error // ErrInfillIgnored, once its last event said so
}

func (s *infillStream) Read(p []byte) (int, error) {
	for s.out.Len() == 0 {
		if s.err != nil {
			return 0, s.err
		}
		if s.done {
			return 0, io.EOF
		}
		if !s.sc.Scan() {
			if err := s.sc.Err(); err != nil {
				return 0, err
			}
			// The stream ended before its last event: without [DONE],
			// the caller sees it cut short.
			s.done = true
			continue
		}
		s.line(s.sc.Bytes())
	}
	return s.out.Read(p)
}

// line translates one line of the event stream.
func (s *infillStream) line(l []byte) {
	data, ok := bytes.CutPrefix(l, []byte("data:"))
	if !ok {
		return // blank lines, comments and other fields; the frame is remade
	}
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		// The server's own end (a proxy's, say): the stream ends there,
		// whatever follows.
		s.out.WriteString("data: [DONE]\n\n")
		s.done = true
		return
	}
	var ev codec.LlamaCppEvent
	if json.Unmarshal(data, &ev) != nil || len(ev.Error) > 0 || (ev.Content == nil && !ev.Stop) {
		// Not an event of /infill (an error event, or what the client
		// cannot read): as the server sent it.
		s.out.WriteString("data: ")
		s.out.Write(data)
		s.out.WriteString("\n\n")
		return
	}
	if s.events++; s.events == 1 && ev.IgnoredInput() {
		s.err = ErrInfillIgnored
		return
	}
	s.out.WriteString("data: ")
	s.out.Write(ev.Completion(s.id, cmp.Or(ev.Model, s.model), s.created, false))
	s.out.WriteString("\n\n")
	if ev.Stop {
		s.out.WriteString("data: [DONE]\n\n")
		s.done = true
	}
}

func (s *infillStream) Close() error { return s.body.Close() }

// RequestModel returns the model a request body names, "" if none.
func RequestModel(body []byte) string {
	var r struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &r)
	return r.Model
}
