package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// Background mode of the Responses API (OpenAI's "Background mode"
// guide): a request with background true runs apart from the connection
// that made it. Its generation goes on whatever that client does (goes
// away, or has its stream cut by a fault) until it ends or POST
// /v1/responses/{id}/cancel cancels it; its events are kept, so that GET
// /v1/responses/{id}?stream=true&starting_after=N streams those after
// sequence number N and then the live ones as the engine makes them. A
// GET without stream answers the Response object as it stands.

// serveBackground serves a background request (index), which passed the
// faults before headers at arrived: it starts the generation and, for a
// streaming request, follows its events with the faults of plan; else it
// answers the queued Response object at once.
func (s *Server) serveBackground(ctx context.Context, index uint64, g *generation, out *output, plan faultPlan, arrived time.Time) {
	gctx, cancel := context.WithCancel(s.closing)
	b := newBGResponse(responseID(index+1), cancel)
	if !s.background.add(b) {
		cancel()
		out.fail(arrived, &apiError{status: http.StatusTooManyRequests, code: "rate_limit_exceeded",
			message: "too many background responses in progress (at most " + strconv.Itoa(maxBackground) + ")"}, time.Second)
		return
	}
	if !s.startBackground(gctx, index, g, b, arrived) {
		out.fail(arrived, &apiError{status: http.StatusServiceUnavailable, message: "server is shutting down"}, 0)
		return
	}
	if !g.stream {
		out.whole(arrived, b.snapshot())
		return
	}
	s.follow(ctx, out, b, 0, plan, arrived)
}

// startBackground adds g's generation to the engine with b as its
// stream, sends its response.created and response.queued events at
// arrived, and runs it until it ends or ctx does. false: the server is
// shutting down.
func (s *Server) startBackground(ctx context.Context, index uint64, g *generation, b *bgResponse, arrived time.Time) bool {
	bg := *g
	bg.stream = true
	out := newOutput(ctx, &bgWriter{b: b}, 0, false, true, &s.late)
	rs, sink, ok := s.schedule(index, &bg, out, faultPlan{}, arrived)
	if !ok {
		b.end(false)
		return false
	}
	f := rs.f.(*responsesFormat)
	f.background = true
	rs.roleSent = false // response.in_progress goes out with the first token
	out.send(arrived, f.queued(nil))
	go s.runBackground(ctx, rs, sink, b)
	return true
}

// runBackground pumps a background response's emissions into its record
// until it ends, is cancelled or the server closes.
func (s *Server) runBackground(ctx context.Context, rs *responder, sink *sink, b *bgResponse) {
	defer func() {
		sink.close()
		rs.release()
		if v := recover(); v != nil && v != http.ErrAbortHandler {
			panic(v)
		}
		b.end(ctx.Err() != nil)
	}()
	s.pump(ctx, rs, sink)
}

// follow streams b's events from sequence number next on to out, each
// when it was made (or at once if it was made before), then the live
// ones, until the last, with the mid-stream faults of plan counted on
// the output-bearing events. now is when the stream starts.
func (s *Server) follow(ctx context.Context, out *output, b *bgResponse, next int, plan faultPlan, now time.Time) {
	chunks, at := 0, now
	if !out.writeHeaders(now) {
		return
	}
	for {
		evs, done, wake, ok := b.since(next)
		if !ok {
			out.truncate(at) // fell behind the events kept
			return
		}
		for _, ev := range evs {
			at = later(ev.at, now)
			if isDelta(ev.frame) {
				if plan.strikes(chunks) {
					a, ok := plan.atChunk(out, &responsesFormat{seq: next}, at, true)
					switch {
					case !ok:
						return
					case a == dropStream:
						out.reset(at) // does not return
					case a == endStream:
						out.truncate(at)
						return
					}
				}
				chunks++
			}
			if !out.queue(at, ev.frame) {
				return
			}
			next++
		}
		if !out.flush() {
			return
		}
		if done {
			out.end(at)
			return
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return
		}
	}
}

// isDelta reports whether an event's frame carries output: a text or a
// tool call's arguments delta.
func isDelta(frame []byte) bool {
	return bytes.HasPrefix(frame, []byte("event: response.output_text.delta\n")) ||
		bytes.HasPrefix(frame, []byte("event: response.function_call_arguments.delta\n"))
}

// getResponse serves GET /v1/responses/{id}: the Response object of a
// background response as it stands or, with stream, its events after
// starting_after (all of them without it), then the live ones. An id the
// Server does not hold as a background response gets 404.
func (s *Server) getResponse(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	b, ok := s.background.get(id)
	if !ok {
		writeError(w, responseNotFound(id))
		return
	}
	stream, after, e := s.resumeParams(w, r)
	if e == nil && stream && after < b.firstKept()-1 {
		e = badRequest("starting_after", "starting_after "+strconv.Itoa(after)+" is before the events kept of response '"+id+"'")
	}
	if e != nil {
		writeError(w, e)
		return
	}
	half := s.cfg.rtt / 2
	out, stop := s.clientOutput(r.Context(), w, stream)
	defer stop()
	arrived := time.Now().Add(half)
	if !waitUntil(r.Context(), arrived) {
		return
	}
	if !stream {
		out.whole(arrived, b.snapshot())
		return
	}
	s.follow(r.Context(), out, b, after+1, faultPlan{}, arrived)
}

// resumeParams reads a GET's stream and starting_after (-1 when not
// given) from its query or, as openai-go sends stream, a JSON body.
func (s *Server) resumeParams(w http.ResponseWriter, r *http.Request) (stream bool, after int, e *apiError) {
	var body struct {
		Stream        *bool `json:"stream"`
		StartingAfter *int  `json:"starting_after"`
	}
	raw, err := readBody(http.MaxBytesReader(w, r.Body, 1<<10), r.ContentLength)
	if err == nil && len(bytes.TrimSpace(raw)) > 0 {
		err = json.Unmarshal(raw, &body)
	}
	if err != nil {
		return false, 0, badRequest("", "invalid body of a GET of a response")
	}
	q := r.URL.Query()
	stream = body.Stream != nil && *body.Stream
	if v := q.Get("stream"); v != "" {
		stream = v == "true"
	}
	after = -1
	if body.StartingAfter != nil {
		after = *body.StartingAfter
	}
	if v := q.Get("starting_after"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return false, 0, badRequest("starting_after", "starting_after must be a sequence number, got '"+v+"'")
		}
		after = n
	}
	return stream, after, nil
}

// cancelResponse serves POST /v1/responses/{id}/cancel: the background
// response's generation stops, and the answer is its Response object,
// in status "cancelled" unless it had ended already.
func (s *Server) cancelResponse(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	b, ok := s.background.get(id)
	if !ok {
		writeError(w, responseNotFound(id))
		return
	}
	b.cancel()
	b.end(true)
	body := b.snapshot()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}
