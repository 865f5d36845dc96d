package tokenpace_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// recording is a recorded server response (see testdata/): status, headers
// and every read of the body with its time since the request was sent.
type recording struct {
	Status    int               `json:"status"`
	HeadersMS float64           `json:"headers_ms"`
	Headers   map[string]string `json:"headers"`
	Reads     []recordedRead
}

type recordedRead struct {
	TMS  float64 `json:"t_ms"`
	Data string  `json:"data"`
}

func ms(v float64) time.Duration { return time.Duration(math.Round(v * float64(time.Millisecond))) }

func loadRecording(t *testing.T, name string) recording {
	t.Helper()
	var rec recording
	rec.Reads = readFixture(t, "testdata/"+name, &rec)
	return rec
}

// readFixture reads a recorded stream at path: its first line into head,
// and its reads.
func readFixture(t *testing.T, path string, head any) []recordedRead {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var reads []recordedRead
	for i := 0; sc.Scan(); i++ {
		if i == 0 {
			if err := json.Unmarshal(sc.Bytes(), head); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			continue
		}
		var r recordedRead
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s line %d: %v", path, i+1, err)
		}
		reads = append(reads, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return reads
}

// replay is a handler that plays rec back with its recorded timing,
// counted from when the request arrived (virtual time in a synctest
// bubble).
func replay(rec recording) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		if !sleepUntil(r.Context(), start.Add(ms(rec.HeadersMS))) {
			return
		}
		for k, v := range rec.Headers {
			switch strings.ToLower(k) {
			case "content-length", "transfer-encoding", "date", "keep-alive":
				continue
			}
			w.Header().Set(k, v)
		}
		w.WriteHeader(rec.Status)
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		for _, rd := range rec.Reads {
			if !sleepUntil(r.Context(), start.Add(ms(rd.TMS))) {
				return
			}
			if _, err := w.Write([]byte(rd.Data)); err != nil {
				return
			}
			_ = rc.Flush()
		}
	}
}

// serve serves h on an in-memory listener (virtual time inside a synctest
// bubble) until the test ends and returns the base URL and an HTTP client
// that reaches it.
func serve(t *testing.T, h http.Handler) (string, *http.Client) {
	t.Helper()
	l := simulate.NewMemListener()
	var handlers sync.WaitGroup
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handlers.Add(1)
		defer handlers.Done()
		h.ServeHTTP(w, r)
	})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hs.Serve(l)
	}()
	c := l.Client()
	t.Cleanup(func() {
		c.CloseIdleConnections()
		_ = hs.Close()
		<-done
		handlers.Wait()
	})
	return "http://replay.invalid/v1/", c
}

// sleepUntil waits until t, or until ctx ends (then it reports false).
func sleepUntil(ctx context.Context, t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// eachRecordedEvent decodes the data of every event of rec but [DONE] as a
// T, in order, and calls f with it and the read it arrived in.
func eachRecordedEvent[T any](t *testing.T, rec recording, f func(ev T, rd recordedRead)) {
	t.Helper()
	for _, rd := range rec.Reads {
		for _, line := range strings.Split(rd.Data, "\n") {
			data, ok := strings.CutPrefix(strings.TrimSuffix(line, "\r"), "data: ")
			if !ok || data == "[DONE]" {
				continue
			}
			var ev T
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				t.Fatalf("recording: %v", err)
			}
			f(ev, rd)
		}
	}
}

// requestCounts counts the requests a server received, path by path.
type requestCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// of returns how many requests to path the server received.
func (c *requestCounts) of(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[path]
}

func (c *requestCounts) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprint(c.n)
}

// serveCounting is serve with h given each request's body read, and the
// requests counted path by path.
func serveCounting(t *testing.T, h func(w http.ResponseWriter, r *http.Request, body []byte)) (string, *http.Client, *requestCounts) {
	t.Helper()
	counts := &requestCounts{n: map[string]int{}}
	url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		counts.mu.Lock()
		counts.n[r.URL.Path]++
		counts.mu.Unlock()
		h(w, r, body)
	}))
	return url, hc, counts
}
