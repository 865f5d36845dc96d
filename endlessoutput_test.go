package tokenpace_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// endless is a handler that streams chunks of 64 KiB of text until the
// client stops reading, or a limit it never reaches: a server that ignores
// its request's max tokens.
func endless(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	piece := strings.Repeat("x", 64<<10)
	for range 4096 { // 256 MiB
		if _, err := fmt.Fprintf(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":%q}}]}`+"\n\n", piece); err != nil {
			return
		}
	}
}

// A server that streams text on and on, ignoring max_tokens: every
// Stream keeps what it read for Accumulated, Text and a continuation, and
// held all of it (256 MiB read, 341 MiB of heap for 300 MiB of text,
// growing for as long as the server sent). The output it holds is now
// bounded: past 64 MiB the stream ends, KindTooLarge, with the text
// before kept; from a Client and through a Router alike.
func TestEndlessOutputBounded(t *testing.T) {
	if tokenpace.RaceEnabled {
		t.Skip("64 MiB through the race detector takes half a minute; .ci/run runs this test without it")
	}
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, http.HandlerFunc(endless))
		c := tokenpace.NewClient(openaiClient(url, hc))
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, tokenpace.Route{Name: "only", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		for name, s := range map[string]*tokenpace.Stream[openai.ChatCompletionChunk]{
			"client": c.NewStreaming(context.Background(), chat("m", 10)),
			"router": r.NewStreaming(context.Background(), chat("m", 10)),
		} {
			var peak uint64
			n := 0
			for s.Next() {
				if n++; n%256 == 0 {
					// The live heap, garbage collected first: what is
					// held, not how far the collector lagged behind.
					runtime.GC()
					var ms runtime.MemStats
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapAlloc)
				}
			}
			var se *tokenpace.StreamError
			if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindTooLarge || se.Detail != "output over 64 MiB" {
				t.Errorf("%s: Err() = %v, want KindTooLarge, output over 64 MiB", name, s.Err())
			}
			if got := len(s.Text()); got != 1024*64<<10 {
				t.Errorf("%s: Text() holds %d bytes, want the %d of the 1024 chunks within the bound", name, got, 1024*64<<10)
			}
			t.Logf("%s: live heap peak %d MiB", name, peak>>20)
			if peak > 256<<20 {
				t.Errorf("%s: heap at %d MiB while reading, want it bounded", name, peak>>20)
			}
			s.Close()
		}
	})
}
