package tokenpace_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// BenchmarkHostileHeap measures the heap a call takes from what a hostile
// server sends, in process: alloc-MiB is what the call allocated, peak-MiB
// the largest live heap sampled every millisecond while it ran, held-MiB
// the live heap the ended stream still holds before Close.
//
//	go test -run '^$' -bench HostileHeap -benchtime 1x -count 3 .
func BenchmarkHostileHeap(b *testing.B) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = io.WriteString(zw, `{"error":{"message":"`)
	for range 256 {
		_, _ = zw.Write(bytes.Repeat([]byte("x"), 1<<20))
	}
	_ = zw.Close()
	empties := strings.Repeat(`{},`, 1_000_000) + `{}`
	bomb := `data: {"id":"c","choices":[{"index":0,"delta":{"content":"x"}},` + empties + "]}\n\n"
	var chunks strings.Builder
	for range 2_000_000 {
		chunks.WriteString(`data: {"id":"c","choices":[{"index":0,"delta":{"content":"x"}}]}` + "\n\n")
	}
	chunks.WriteString("data: [DONE]\n\n")
	for _, bc := range []struct {
		name string
		res  func() *http.Response
	}{
		{"error body 2 MB gzip to 256 MiB", func() *http.Response {
			return &http.Response{StatusCode: 500, Header: http.Header{"Content-Type": {"application/json"}},
				Body: gzipBody(gz.Bytes())}
		}},
		{"3 events of 1M empty choices", func() *http.Response {
			return eventStream(bomb + bomb + bomb + "data: [DONE]\n\n")
		}},
		{"2M one-token chunks", func() *http.Response { return eventStream(chunks.String()) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			oc := openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("x"),
				option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: fixedTransport(bc.res)}))
			tp := tokenpace.NewClient(oc)
			var alloc, peak, held uint64
			for b.Loop() {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				var top atomic.Uint64
				stop := sampleHeap(&top)
				s := tp.NewStreaming(context.Background(), chat("m", 10))
				for s.Next() {
				}
				stop()
				runtime.GC()
				runtime.ReadMemStats(&after)
				held = max(held, after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc))
				_ = s.Close()
				alloc = max(alloc, after.TotalAlloc-before.TotalAlloc)
				peak = max(peak, top.Load()-min(top.Load(), before.HeapAlloc))
			}
			b.ReportMetric(float64(alloc)/(1<<20), "alloc-MiB")
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			b.ReportMetric(float64(held)/(1<<20), "held-MiB")
		})
	}
}

// sampleHeap records the largest live heap in top every millisecond until
// stop is called.
func sampleHeap(top *atomic.Uint64) (stop func()) {
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > top.Load() {
					top.Store(m.HeapAlloc)
				}
			}
		}
	}()
	return func() { close(done); <-ended }
}

func gzipBody(b []byte) io.ReadCloser {
	zr, _ := gzip.NewReader(bytes.NewReader(b))
	return io.NopCloser(zr)
}

func eventStream(body string) *http.Response {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(strings.NewReader(body))}
}

// fixedTransport answers every request with the response res makes.
type fixedTransport func() *http.Response

func (f fixedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	res := f()
	res.Proto, res.ProtoMajor, res.ProtoMinor, res.Request, res.ContentLength = "HTTP/1.1", 1, 1, r, -1
	return res, nil
}
