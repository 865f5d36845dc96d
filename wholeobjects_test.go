package tokenpace_test

import (
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestWholeBodyObjects: a non-streaming answer of status 200 whose JSON
// holds 200,000 empty objects (600 KB, far under the 32 MiB bound on a
// whole body) as choices or output items. openai-go decodes each into a
// choice or an output item of kilobytes: the call took 450 to 800 MiB of
// heap and returned them all (a 32 MiB body of them would take some
// 40 GiB). It is refused as it is read, KindTooLarge, before it is
// decoded; an answer with logprobs asked for keeps room for them.
func TestWholeBodyObjects(t *testing.T) {
	empties := strings.Repeat(`{},`, 200_000) + `{}`
	tests := []struct {
		name string
		body string
		call func(tp *tokenpace.Client) error
	}{
		{"chat choices", `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"x"},"finish_reason":"stop"},` + empties + `]}`,
			func(tp *tokenpace.Client) error { _, err := tp.New(context.Background(), chat("m", 10)); return err }},
		{"completion choices", `{"id":"c","object":"text_completion","model":"m","choices":[{"index":0,"text":"x","finish_reason":"stop"},` + empties + `]}`,
			func(tp *tokenpace.Client) error {
				_, err := tp.NewCompletion(context.Background(), complete("m", 10))
				return err
			}},
		{"response output", `{"id":"r","object":"response","model":"m","status":"completed","output":[` + empties + `]}`,
			func(tp *tokenpace.Client) error {
				_, err := tp.NewResponse(context.Background(), respond("m", 10))
				return err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp := answeringClient("application/json", tt.body)
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			var top atomic.Uint64
			stop := sampleHeap(&top)
			err := tt.call(tp)
			stop()
			if peak := float64(top.Load()-min(top.Load(), before.HeapAlloc)) / (1 << 20); peak > 32 {
				t.Errorf("peak heap = %.0f MiB, want at most 32", peak)
			}
			checkKind(t, err, tokenpace.KindTooLarge)
		})
	}
}

// TestWholeBodyLogprobs: a whole chat answer with the log probabilities
// its request asked for, 2,000 tokens of 5 alternatives each (12,000
// objects, several times the bound on one event's), is the caller's.
func TestWholeBodyLogprobs(t *testing.T) {
	var lp strings.Builder
	for i := range 2000 {
		if i > 0 {
			lp.WriteString(",")
		}
		lp.WriteString(`{"token":"x","logprob":-0.1,"bytes":[120],"top_logprobs":[` + strings.Repeat(`{"token":"y","logprob":-1,"bytes":[121]},`, 4) + `{"token":"z","logprob":-2,"bytes":[122]}]}`)
	}
	body := `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"x"},"logprobs":{"content":[` + lp.String() + `]},"finish_reason":"stop"}]}`
	tp := answeringClient("application/json", body)
	p := chat("m", 2000)
	p.Logprobs, p.TopLogprobs = openai.Bool(true), openai.Int(5)
	res, err := tp.New(context.Background(), p)
	if err != nil {
		t.Fatalf("New = %v, want the answer", err)
	}
	if n := len(res.Choices[0].Logprobs.Content); n != 2000 {
		t.Errorf("logprobs = %d tokens, want 2000", n)
	}
}
