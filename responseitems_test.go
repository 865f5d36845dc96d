package tokenpace_test

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestResponseEventItems: Responses events whose response holds 20,000
// empty output items, or tools (60 KB each, under the bound of 65,536
// objects an event may hold), ten in a row before the answer. openai-go
// decodes each into an item or a tool of some 4 KB: the stream took
// 401 MiB of heap at its peak from 600 KB (348 MiB of tools). An event with more items or
// tools than a response holds is refused before it is decoded,
// KindTooLarge, as a chat chunk of more choices than asked for is.
func TestResponseEventItems(t *testing.T) {
	empties := strings.Repeat(`{},`, 19_999) + `{}`
	for _, tt := range []struct{ name, field string }{
		{"output items", "output"},
		{"tools", "tools"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev := `data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"r","object":"response","status":"in_progress","` + tt.field + `":[` + empties + `]}}` + "\n\n"
			body := strings.Repeat(ev, 10) +
				`data: {"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"x","sequence_number":2}` + "\n\n" +
				`data: {"type":"response.completed","sequence_number":3,"response":{"id":"r","object":"response","status":"completed","usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}}` + "\n\n"
			tp := tokenpace.NewClient(openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("x"),
				option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: fixedTransport(func() *http.Response { return eventStream(body) })})))
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			var top atomic.Uint64
			stop := sampleHeap(&top)
			s := tp.NewResponseStreaming(context.Background(), respond("m", 10))
			for s.Next() {
			}
			stop()
			defer s.Close()
			if peak := float64(top.Load()-min(top.Load(), before.HeapAlloc)) / (1 << 20); peak > 32 {
				t.Errorf("peak heap = %.0f MiB, want at most 32", peak)
			}
			checkKind(t, s.Err(), tokenpace.KindTooLarge)
		})
	}
}

// TestWholeResponseItems: a whole response of 20,000 empty output items,
// or tools (60 KB, under the bound of 65,536 objects), took 78 and
// 86 MiB of heap decoded; it is refused as it is read, KindTooLarge.
func TestWholeResponseItems(t *testing.T) {
	empties := strings.Repeat(`{},`, 19_999) + `{}`
	for _, field := range []string{"output", "tools"} {
		t.Run(field, func(t *testing.T) {
			body := `{"id":"r","object":"response","model":"m","status":"completed","` + field + `":[` + empties + `]}`
			tp := answeringClient("application/json", body)
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			var top atomic.Uint64
			stop := sampleHeap(&top)
			_, err := tp.NewResponse(context.Background(), respond("m", 10))
			stop()
			if peak := float64(top.Load()-min(top.Load(), before.HeapAlloc)) / (1 << 20); peak > 32 {
				t.Errorf("peak heap = %.0f MiB, want at most 32", peak)
			}
			checkKind(t, err, tokenpace.KindTooLarge)
		})
	}
}
