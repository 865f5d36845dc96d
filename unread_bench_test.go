package tokenpace_test

import (
	"context"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// BenchmarkUnreadHeap measures the heap held by a stream whose caller does
// not read while 200,000 chunks (~50 MB of events) arrive at once, then
// reads them all: heap-MiB is the live heap after 3 s without reading.
//
//	go test -run '^$' -bench UnreadHeap -benchtime 1x -count 3 .
func BenchmarkUnreadHeap(b *testing.B) {
	const n = 200_000
	body := sseStream(n)
	oc := openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("x"),
		option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: bodyTransport{body}}))
	tp := tokenpace.NewClient(oc)
	var peak uint64
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		s := tp.NewStreaming(context.Background(), chat("gpt-4.1", n))
		time.Sleep(3 * time.Second) // the caller does other work
		runtime.GC()
		var held runtime.MemStats
		runtime.ReadMemStats(&held)
		peak = max(peak, held.HeapAlloc-min(held.HeapAlloc, before.HeapAlloc))
		got := 0
		for s.Next() {
			got++
		}
		s.Close()
		if got < n {
			b.Fatalf("read %d chunks, want at least %d", got, n)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "heap-MiB")
}
