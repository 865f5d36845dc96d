package simulate

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"
)

// flushRecorder is a ResponseWriter that records, at each flush, the time
// and everything the client has received so far.
type flushRecorder struct {
	*httptest.ResponseRecorder
	flushes []flushAt
}

type flushAt struct {
	at   time.Duration // since the test's start
	body string        // everything received by then
}

func (f *flushRecorder) flushAt(start time.Time) {
	f.flushes = append(f.flushes, flushAt{time.Since(start), f.Body.String()})
}

type recordingWriter struct {
	rec   *flushRecorder
	start time.Time
}

func (w recordingWriter) Header() http.Header         { return w.rec.Header() }
func (w recordingWriter) Write(b []byte) (int, error) { return w.rec.Write(b) }
func (w recordingWriter) WriteHeader(code int)        { w.rec.WriteHeader(code) }
func (w recordingWriter) Flush()                      { w.rec.flushAt(w.start) }

// TestOutputQueueFlushesOnce pins that chunks queued at one wake-up leave in
// one flush, in order, and that queued bytes are flushed before the output
// sleeps for a later chunk rather than held back with it.
func TestOutputQueueFlushesOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		rec := &flushRecorder{ResponseRecorder: httptest.NewRecorder()}
		o := newOutput(context.Background(), recordingWriter{rec, start}, 0, false, true, &lateness{})
		time.Sleep(10 * time.Millisecond)
		// Three chunks already due (a stream that fell behind), then one
		// due 5 ms from now.
		for i, c := range []string{"a", "b", "c"} {
			if !o.queue(start.Add(time.Duration(i)*time.Millisecond), []byte(c)) {
				t.Fatalf("queue(%q) = false, want true", c)
			}
		}
		if !o.flush() {
			t.Fatal("flush() = false, want true")
		}
		if !o.queue(start.Add(15*time.Millisecond), []byte("d")) || !o.queue(start.Add(15*time.Millisecond), []byte("e")) {
			t.Fatal("queue = false, want true")
		}
		if !o.queue(start.Add(20*time.Millisecond), []byte("f")) || !o.flush() {
			t.Fatal("queue or flush = false, want true")
		}
		if !o.flush() {
			t.Fatal("flush() with nothing queued = false, want true")
		}
		want := []flushAt{
			{10 * time.Millisecond, "abc"},
			{15 * time.Millisecond, "abcde"}, // before sleeping for f
			{20 * time.Millisecond, "abcdef"},
		}
		if len(rec.flushes) != len(want) {
			t.Fatalf("flushes = %+v, want %+v", rec.flushes, want)
		}
		for i := range want {
			if rec.flushes[i] != want[i] {
				t.Errorf("flush %d = %+v, want %+v", i, rec.flushes[i], want[i])
			}
		}
	})
}
