package simulate

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"time"
)

// Caps of background mode. A Server keeps at most maxBackground
// background responses, dropping the oldest finished one for a new one;
// while all of them are still generating, a new background request is
// refused with 429. Each keeps at most maxBackgroundBytes of its latest
// events for a resumed stream to replay: past that, its oldest events
// are dropped, and a resume from before what is kept is refused with 400.
// A hostile client thus holds at most maxBackground × maxBackgroundBytes
// (64 MiB) of events.
const (
	maxBackground      = 128
	maxBackgroundBytes = 512 << 10
)

// bgEvent is one event of a background response's stream, as sent: the
// SSE frame and the server time it went out at.
type bgEvent struct {
	at    time.Time
	frame []byte
}

// bgResponse is a background response as its generation makes it: its
// events, kept so that a stream may resume after any of them, and the
// Response object as it stands. Its generation writes it (through
// bgWriter); any number of streams follow it. It is safe for concurrent
// use.
type bgResponse struct {
	id     string
	cancel context.CancelFunc // ends the generation

	mu        sync.Mutex
	events    []bgEvent // the latest, from sequence number first
	first     int
	bytes     int
	object    []byte        // the Response object of the latest event holding one
	partial   []byte        // bytes of an event not yet whole
	done      bool          // no event will follow
	cancelled bool          // cancelled before it ended
	wake      chan struct{} // closed and replaced when an event is added
}

func newBGResponse(id string, cancel context.CancelFunc) *bgResponse {
	return &bgResponse{id: id, cancel: cancel, wake: make(chan struct{})}
}

// write takes the bytes of whole or partial events sent at at.
func (b *bgResponse) write(at time.Time, p []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return // cancelled: what the generation still wrote is not kept
	}
	b.partial = append(b.partial, p...)
	added := false
	for {
		i := bytes.Index(b.partial, []byte("\n\n"))
		if i < 0 {
			break
		}
		frame := bytes.Clone(b.partial[:i+2])
		b.partial = b.partial[i+2:]
		b.keep(bgEvent{at: at, frame: frame})
		added = true
	}
	if len(b.partial) == 0 {
		b.partial = nil
	}
	if added {
		close(b.wake)
		b.wake = make(chan struct{})
	}
}

// keep appends ev, and its Response object if it holds one, dropping
// the oldest events past maxBackgroundBytes. b.mu is held.
func (b *bgResponse) keep(ev bgEvent) {
	if obj := responseObject(ev.frame); obj != nil {
		b.object = obj
	}
	b.events = append(b.events, ev)
	b.bytes += len(ev.frame)
	drop := 0
	for b.bytes > maxBackgroundBytes && drop < len(b.events)-1 {
		b.bytes -= len(b.events[drop].frame)
		drop++
	}
	if drop > 0 {
		b.events = append([]bgEvent(nil), b.events[drop:]...)
		b.first += drop
	}
}

// responseObject returns the Response object an event's frame holds (its
// data's last member, "response"), or nil.
func responseObject(frame []byte) []byte {
	i := bytes.Index(frame, []byte(`,"response":{`))
	if i < 0 {
		return nil
	}
	obj := bytes.TrimSuffix(frame[i+len(`,"response":`):], []byte("\n\n"))
	return bytes.Clone(bytes.TrimSuffix(obj, []byte("}")))
}

// end marks that no event will follow: the generation ended, was
// cancelled, or the server closed.
func (b *bgResponse) end(cancelled bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return
	}
	b.done, b.cancelled = true, cancelled && !b.finished()
	close(b.wake)
}

// finished reports whether the Response object is in a final status.
// b.mu is held.
func (b *bgResponse) finished() bool {
	return !bytes.Contains(b.object, []byte(`"status":"queued"`)) && !bytes.Contains(b.object, []byte(`"status":"in_progress"`))
}

// since returns the events from sequence number next on, whether none
// will follow them, and a channel closed when more come. ok is false if
// the events from next on are no longer all kept.
func (b *bgResponse) since(next int) (evs []bgEvent, done bool, wake <-chan struct{}, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if next < b.first {
		return nil, b.done, b.wake, false
	}
	if i := next - b.first; i < len(b.events) {
		evs = b.events[i:len(b.events):len(b.events)]
	}
	return evs, b.done, b.wake, true
}

// snapshot returns the Response object as it stands: its status
// "cancelled" once cancelled before it ended.
func (b *bgResponse) snapshot() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	obj := b.object
	if b.cancelled {
		obj = bytes.Replace(obj, []byte(`"status":"in_progress"`), []byte(`"status":"cancelled"`), 1)
		obj = bytes.Replace(obj, []byte(`"status":"queued"`), []byte(`"status":"cancelled"`), 1)
	}
	return append(bytes.Clone(obj), '\n')
}

// firstKept returns the sequence number of the oldest event kept.
func (b *bgResponse) firstKept() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.first
}

// isDone reports whether no event will follow.
func (b *bgResponse) isDone() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.done
}

// bgWriter is the http.ResponseWriter a background response's generation
// writes its stream to: the events go to the response's record, whatever
// any client does.
type bgWriter struct {
	b *bgResponse
	h http.Header
}

func (w *bgWriter) Header() http.Header {
	if w.h == nil {
		w.h = make(http.Header)
	}
	return w.h
}

func (w *bgWriter) WriteHeader(int) {}

func (w *bgWriter) Write(p []byte) (int, error) {
	w.b.write(time.Now(), p)
	return len(p), nil
}

// Flush does nothing: every event is kept once whole.
func (w *bgWriter) Flush() {}

// bgStore keeps a Server's background responses by id, at most
// maxBackground of them. It is safe for concurrent use.
type bgStore struct {
	mu    sync.Mutex
	resps map[string]*bgResponse
	order []string // ids, oldest first
}

// add keeps b, dropping the oldest finished response when full; false if
// every kept response is still generating.
func (s *bgStore) add(b *bgResponse) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resps == nil {
		s.resps = make(map[string]*bgResponse)
	}
	if len(s.order) >= maxBackground {
		i := 0
		for i < len(s.order) && !s.resps[s.order[i]].isDone() {
			i++
		}
		if i == len(s.order) {
			return false
		}
		delete(s.resps, s.order[i])
		s.order = append(s.order[:i], s.order[i+1:]...)
	}
	s.order = append(s.order, b.id)
	s.resps[b.id] = b
	return true
}

// get returns the response kept under id.
func (s *bgStore) get(id string) (*bgResponse, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.resps[id]
	return b, ok
}

// responseNotFound is the answer to a GET or cancel of an id the Server
// does not hold, as OpenAI gives it: 404, of type invalid_request_error.
func responseNotFound(id string) *apiError {
	return &apiError{status: http.StatusNotFound, typ: "invalid_request_error", param: "response_id",
		message: "No response found with id '" + id + "'."}
}
