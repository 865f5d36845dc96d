package tokenpace_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// methods counts the requests a transport carries, by method.
type methods struct {
	rt http.RoundTripper
	mu sync.Mutex
	n  map[string]int
}

func (m *methods) RoundTrip(r *http.Request) (*http.Response, error) {
	m.mu.Lock()
	m.n[r.Method]++
	m.mu.Unlock()
	return m.rt.RoundTrip(r)
}

// A background response whose stream the simulator cuts mid-answer (a
// reset after 3 chunks) is resumed end to end by a Router with
// Continue: one POST, one GET with starting_after, and the caller reads
// the reply the same request gets without a fault, once, with no
// restart. Before the simulator had background mode, its GET got 404
// and the call could only be continued by a new generation.
func TestRouterResumesSimulatedBackground(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("bg", &simulate.Fixed{TTFT: 100 * msec, ITL: 10 * msec}))
		m := &methods{rt: ts.Client.Transport, n: map[string]int{}}
		hc := &http.Client{Transport: m}
		plain := tokenpace.NewClient(openaiClient(ts.URL, hc))
		ref := plain.NewResponseStreaming(context.Background(), background("bg"))
		_, _ = readEvents(ref)
		want := ref.Text()

		faulty := openai.NewClient(option.WithBaseURL(ts.URL), option.WithHTTPClient(hc), option.WithAPIKey("sk-test-secret"),
			option.WithMaxRetries(0), option.WithHeader(simulate.FaultHeader, "reset;after=3"))
		r, err := tokenpace.NewRouter(tokenpace.NewClient(faulty), tokenpace.Policy{Continue: true}, route("bg"))
		if err != nil {
			t.Fatal(err)
		}
		m.n = map[string]int{}
		s := r.NewResponseStreaming(context.Background(), background("bg"))
		evs, restarts := readEvents(s)
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		if s.Text() != want || want == "" {
			t.Errorf("Text() = %q, want %q", s.Text(), want)
		}
		checkSequence(t, evs, restarts)
		if k := kinds(s.Timing()); fmt.Sprint(k) != "[first continuation]" || m.n["POST"] != 1 || m.n["GET"] != 1 {
			t.Errorf("kinds %v, requests %v; want [first continuation], one POST, one GET", k, m.n)
		}
	})
}
