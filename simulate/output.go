package simulate

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// output is a response's writer: it delivers the response through the
// network model. Times passed to it
// are when the server sends (server time); the bytes are written rtt/2
// later, which is when a client across the modelled network would receive
// them. A buffering proxy holds everything, headers included, until end.
//
// Every wait is for an absolute deadline, so delays never accumulate.
type output struct {
	w         http.ResponseWriter
	rc        *http.ResponseController
	ctx       context.Context
	half      time.Duration // rtt/2
	buffering bool
	stream    bool

	headersAt  time.Time   // nothing goes out before (slow headers)
	stallUntil time.Time   // nothing goes out before (a stall)
	started    bool        // headers written
	unflushed  bool        // bytes written but not yet flushed
	held       []byte      // what a buffering proxy holds
	late       *lateness   // records how late writes are
	direct     *directConn // set once the driver may write the chunks

	writeTimeout time.Duration   // how long a write may wait for the client
	closing      context.Context // ends when the server closes
	armed        bool            // the connection has a write deadline
}

func newOutput(ctx context.Context, w http.ResponseWriter, half time.Duration, buffering, stream bool, late *lateness) *output {
	return &output{w: w, rc: http.NewResponseController(w), ctx: ctx, half: half, buffering: buffering, stream: stream, late: late}
}

// clientOutput returns the output of a response to a client over w, half
// a round trip away, its writes bounded by the Server's write timeout;
// stop ends the watch by which the Server's Close fails a write that
// waits for a client that does not read.
func (s *Server) clientOutput(ctx context.Context, w http.ResponseWriter, stream bool) (out *output, stop func() bool) {
	out = newOutput(ctx, w, s.cfg.rtt/2, s.cfg.buffering, stream, &s.late)
	out.writeTimeout, out.closing = s.cfg.writeTimeout, s.closing
	return out, context.AfterFunc(s.closing, out.abortWrites)
}

// arm gives the writes that follow writeTimeout to complete: a client
// that takes none of their bytes for that long is dropped (the writes
// fail). Once the server is closing, they fail at once.
func (o *output) arm() {
	if o.writeTimeout <= 0 {
		return
	}
	o.rc.SetWriteDeadline(time.Now().Add(o.writeTimeout))
	o.armed = true
	if o.closing != nil && o.closing.Err() != nil {
		o.abortWrites()
	}
}

// disarm removes the write deadline, so that the driver's direct writes,
// which never wait, are not refused once it has passed.
func (o *output) disarm() {
	if o.armed {
		o.rc.SetWriteDeadline(time.Time{})
		o.armed = false
	}
}

// abortWrites makes every write to the connection fail from now on,
// pending ones included. It is safe to call from any goroutine.
func (o *output) abortWrites() {
	o.rc.SetWriteDeadline(longAgo)
}

// longAgo is a write deadline that has passed.
var longAgo = time.Unix(1, 0)

// wait waits until bytes sent at at are due and records how late the
// wake-up was.
func (o *output) wait(at time.Time) bool {
	due := o.due(at)
	if !o.waitFor(due) {
		return false
	}
	o.late.observe(due)
	return true
}

// waitFor waits until due, first flushing what is written but not yet
// flushed if it has to sleep: queued bytes are never held back while the
// output waits for later ones.
func (o *output) waitFor(due time.Time) bool {
	if o.unflushed && time.Until(due) > 0 && !o.flush() {
		return false
	}
	if !waitUntil(o.ctx, due) {
		return false
	}
	o.arm()
	return true
}

// flush sends what queue wrote since the last flush, in one write to the
// connection, and reports false if the client went away.
func (o *output) flush() bool {
	if !o.unflushed {
		return true
	}
	o.unflushed = false
	return o.rc.Flush() == nil
}

// waitUntil waits for t on the clock (virtual under testing/synctest), and
// reports false if ctx ended first.
func waitUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// due returns when bytes the server sends at at reach the client.
func (o *output) due(at time.Time) time.Time {
	if at.Before(o.headersAt) {
		at = o.headersAt
	}
	if at.Before(o.stallUntil) {
		at = o.stallUntil
	}
	return at.Add(o.half)
}

// writeHeaders sends the status line and headers of a streaming response
// (at once unless buffering; with the first bytes, otherwise).
func (o *output) writeHeaders(at time.Time) bool {
	if !o.stream || o.buffering || o.started {
		return true
	}
	if !o.wait(at) {
		return false
	}
	o.startStream()
	return o.rc.Flush() == nil
}

func (o *output) startStream() {
	h := o.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	o.w.WriteHeader(http.StatusOK)
	o.started = true
}

// send delivers stream bytes the server sends at at, flushing them as one
// write, and reports false if the client went away.
func (o *output) send(at time.Time, data []byte) bool {
	return o.queue(at, data) && o.flush()
}

// queue writes stream bytes the server sends at at without flushing them,
// so that several chunks due at one wake-up leave in one write; flush (or
// any later wait that has to sleep) sends them. It reports false if the
// client went away.
func (o *output) queue(at time.Time, data []byte) bool {
	if o.buffering {
		o.held = append(o.held, data...)
		return true
	}
	if !o.wait(at) {
		return false
	}
	if !o.started {
		o.startStream()
	}
	if _, err := o.w.Write(data); err != nil {
		return false
	}
	o.unflushed = true
	return true
}

// end delivers what a buffering proxy held, at at.
func (o *output) end(at time.Time) bool {
	if !o.buffering {
		return true
	}
	if !o.wait(at) {
		return false
	}
	o.startStream()
	o.w.Write(o.held)
	return o.rc.Flush() == nil
}

// whole delivers a non-streaming JSON response sent at at.
func (o *output) whole(at time.Time, body []byte) bool {
	return o.page(at, http.StatusOK, "application/json", body)
}

// page delivers a whole response of the given status and content type,
// sent at at.
func (o *output) page(at time.Time, status int, contentType string, body []byte) bool {
	if !o.wait(at) {
		return false
	}
	h := o.w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	o.w.WriteHeader(status)
	o.started = true
	_, err := o.w.Write(body)
	return err == nil
}

// truncate ends a stream's body cleanly at at, without what was still to
// come: what a buffering proxy held goes out, then the body's end.
func (o *output) truncate(at time.Time) bool {
	if o.buffering {
		return o.end(at)
	}
	return o.waitFor(o.due(at))
}

// fail delivers an error response sent at at.
func (o *output) fail(at time.Time, e *apiError, retryAfter time.Duration) {
	if !o.waitFor(o.due(at)) {
		return
	}
	if retryAfter > 0 {
		secs := (retryAfter + time.Second - 1) / time.Second
		o.w.Header().Set("Retry-After", strconv.FormatInt(int64(secs), 10))
		o.w.Header().Set("Retry-After-Ms", strconv.FormatInt(retryAfter.Milliseconds(), 10))
	}
	writeError(o.w, e)
}

// reset drops the connection at at, as a failing server or proxy would:
// the client sees the body end without its terminating chunk.
func (o *output) reset(at time.Time) {
	o.waitFor(o.due(at))
	if o.started {
		o.rc.Flush()
	}
	panic(http.ErrAbortHandler)
}
