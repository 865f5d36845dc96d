package wire

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// serverLooks is what servers said when the client looked at an endpoint
// of theirs that tells what their answers cannot (SGLang's /server_info,
// llama-cpp-python's /openapi.json), each kept for lookFor after it was
// said, by the server's root URL. Its methods are safe for concurrent
// use; the zero value knows nothing yet.
type serverLooks[T any] struct {
	mu sync.Mutex
	m  map[string]*serverLook[T]
}

// serverLook is what a server said, and when; done is closed once it has
// (or the look failed), v and at are written before.
type serverLook[T any] struct {
	v    T
	at   time.Time
	done chan struct{}
}

const (
	// lookFor is how long what a server said holds: it changes only when
	// the server is started again, which takes a model's loading, tens of
	// seconds at least.
	lookFor = time.Minute
	// lookWait bounds one look at a server.
	lookWait = 2 * time.Second
	// lookBytes bounds the answer to a look; SGLang's /server_info is
	// some 20 KiB for one data-parallel rank.
	lookBytes = 1 << 20
)

// get returns what the server of req, a completions request, says: what
// it said within lookFor, or what ask finds now at its root (req's URL
// without its path's /v1/completions or /completions, nor its query).
// A look that fails is remembered as ask returns it, the zero T for
// "unknown" as a rule. One look at a time goes to a server: the calls
// that come meanwhile wait for it. A call whose context ends first gets
// the zero T; the look goes on, within lookWait, so that what it finds
// holds for the next call (a TTFT budget shorter than the look would
// otherwise end every look, and every call would wait again).
func (s *serverLooks[T]) get(req *http.Request, ask func(root url.URL, header http.Header) T) T {
	var unknown T
	ctx := req.Context()
	if ctx.Err() != nil {
		return unknown
	}
	root := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(req.URL.Path, "/"), "/completions"), "/v1")
	u := *req.URL
	u.Path, u.RawPath, u.RawQuery, u.Fragment = root, "", "", ""
	key := u.String()
	s.mu.Lock()
	e := s.m[key]
	if e == nil || e.settled() && time.Since(e.at) >= lookFor {
		e = &serverLook[T]{done: make(chan struct{})}
		if s.m == nil {
			s.m = map[string]*serverLook[T]{}
		}
		s.m[key] = e
		h := req.Header.Clone()
		go func() {
			v := ask(u, h)
			s.mu.Lock()
			e.v, e.at = v, time.Now()
			s.mu.Unlock()
			close(e.done)
		}()
	}
	s.mu.Unlock()
	select {
	case <-e.done:
		s.mu.Lock()
		defer s.mu.Unlock()
		return e.v
	case <-ctx.Done():
		return unknown
	}
}

// settled reports whether the server has said, or the look failed.
func (e *serverLook[T]) settled() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// lookAt asks the server at root, a URL without query, at the first of
// paths it does not answer 404, with header (the call's credentials),
// within lookWait, through send, and returns its answer's body: nil for
// a failure, any other status than 200, or a body over lookBytes. Its
// requests carry no context values of the call's, whose httptrace hooks
// time the call.
func lookAt(root url.URL, header http.Header, paths []string, send func(*http.Request) (*http.Response, error)) []byte {
	ctx, cancel := context.WithTimeout(context.Background(), lookWait)
	defer cancel()
	for _, h := range []string{"Content-Type", "Content-Length", "Content-Encoding", "Accept-Encoding", "Idempotency-Key"} {
		header.Del(h) // the transport then decodes what it asks for
	}
	header.Set("Accept", "application/json")
	for _, p := range paths {
		u := root
		u.Path = root.Path + p
		r, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil
		}
		r.Header = header
		res, err := send(r)
		if err != nil {
			return nil
		}
		body, err := io.ReadAll(io.LimitReader(res.Body, lookBytes+1))
		_ = res.Body.Close()
		switch {
		case res.StatusCode == http.StatusNotFound:
			continue
		case err != nil || res.StatusCode != http.StatusOK || len(body) > lookBytes:
			return nil
		}
		return body
	}
	return nil
}
