package simulate_test

import (
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// together is n requests of prompt and output tokens, all arriving at 0.
func together(n, prompt, output int) []simulate.Arrival {
	w := make([]simulate.Arrival, n)
	for i := range w {
		w[i] = simulate.Arrival{Request: simulate.Request{ID: uint64(i), PromptTokens: prompt, OutputTokens: output}}
	}
	return w
}

func TestFrontEndWritesChunksOneAfterAnother(t *testing.T) {
	d := anchor(t) // 35 ms decode steps, no host time
	w := together(64, 16, 20)
	bare := run(t, d, w)
	d.FrontEndPerChunk = time.Millisecond // 64 chunks a step: 64 ms of writing per 35 ms step
	front := run(t, d, w)
	for i := range w {
		if !front[i].Done || front[i].OutputTokens != 20 {
			t.Fatalf("request %d: done %v with %d tokens, want done with 20", i, front[i].Done, front[i].OutputTokens)
		}
		if got := bare[i].TPOT(); got > 40*time.Millisecond {
			t.Errorf("request %d without a front end: TPOT = %v, want the step's ~35ms", i, got)
		}
		if got := front[i].TPOT(); got < 60*time.Millisecond || got > 68*time.Millisecond {
			t.Errorf("request %d with 1 ms a chunk over 64 streams: TPOT = %v, want ~64ms (the front end's pace)", i, got)
		}
		if front[i].TTFT != front[i].Queue+front[i].Prefill {
			t.Errorf("request %d: TTFT %v != Queue %v + Prefill %v", i, front[i].TTFT, front[i].Queue, front[i].Prefill)
		}
		if i > 0 && front[i].Chunks[0] != front[i-1].Chunks[0]+time.Millisecond {
			t.Errorf("first chunks of requests %d and %d at %v and %v, want 1ms apart (written in order)", i-1, i, front[i-1].Chunks[0], front[i].Chunks[0])
		}
	}
}

func TestFrontEndQueuesRequests(t *testing.T) {
	d := anchor(t)
	d.FrontEndPerRequest = 10 * time.Millisecond
	res := run(t, d, together(4, 16, 2))
	for i, r := range res {
		if want := time.Duration(i+1) * 10 * time.Millisecond; r.Queue < want {
			t.Errorf("request %d of 4 arriving together: Queue = %v, want at least %v (taken in one after another)", i, r.Queue, want)
		}
		if r.TTFT != r.Queue+r.Prefill {
			t.Errorf("request %d: TTFT %v != Queue %v + Prefill %v", i, r.TTFT, r.Queue, r.Prefill)
		}
	}
	d.FrontEndPerRequest = -1
	if q := run(t, d, together(4, 16, 2))[3].Queue; q != 0 {
		t.Errorf("no front end: the fourth request's Queue = %v, want 0 (batched at once)", q)
	}
}

func TestFrontEndCancelDropsUnwrittenChunks(t *testing.T) {
	d := anchor(t)
	d.FrontEndPerChunk = 100 * time.Millisecond // slower than a step
	e := newEngine(t, d)
	e.Add(0, &simulate.Request{ID: 1, PromptTokens: 16, OutputTokens: 5})
	e.Add(0, &simulate.Request{ID: 2, PromptTokens: 16, OutputTokens: 5})
	step, ok := e.Next()
	if !ok {
		t.Fatal("Next() = false with two requests, want a step")
	}
	var got []simulate.Emission
	record := func(em simulate.Emission) { got = append(got, em) }
	e.AdvanceTo(step, record) // the first tokens are produced, not yet written
	e.Cancel(step, 2)
	got = append(got, drain(e)...)
	n := 0
	for i, em := range got {
		if em.ID == 2 && em.At > step+100*time.Millisecond {
			t.Errorf("emission %d of cancelled request 2 delivered at %v", i, em.At)
		}
		if em.ID == 1 {
			n += em.Tokens
		}
		if i > 0 && em.At < got[i-1].At {
			t.Errorf("emission %d at %v before emission %d at %v, want time order", i, em.At, i-1, got[i-1].At)
		}
	}
	if n != 5 {
		t.Errorf("request 1 delivered %d tokens, want 5", n)
	}
}

func TestFrontEndDefaults(t *testing.T) {
	compiled := simulate.DefaultsFor(simulate.Deployment{Runtime: simulate.RuntimeVLLM})
	if compiled.FrontEndPerChunk != 7500*time.Nanosecond || compiled.FrontEndPerRequest != 0 {
		t.Errorf("vLLM class front end: %v a chunk, %v a request; want 7.5µs, 0", compiled.FrontEndPerChunk, compiled.FrontEndPerRequest)
	}
	for _, r := range []simulate.Runtime{simulate.RuntimeLlamaCpp, simulate.RuntimeEager} {
		if e := simulate.DefaultsFor(simulate.Deployment{Runtime: r}); e.FrontEndPerChunk != 0 || e.FrontEndPerRequest != 0 {
			t.Errorf("%v class front end: %v a chunk, %v a request; want none", r, e.FrontEndPerChunk, e.FrontEndPerRequest)
		}
	}
	d, err := anchor(t).Resolved() // StepOverhead −1: no host time at all
	if err != nil {
		t.Fatal(err)
	}
	if d.FrontEndPerChunk >= 0 || d.FrontEndPerRequest >= 0 {
		t.Errorf("StepOverhead −1 resolves the front end to %v a chunk, %v a request; want none (negative)", d.FrontEndPerChunk, d.FrontEndPerRequest)
	}
}

// A written chunk's place in the front end's queue is reused once it is
// delivered: a stream's allocations do not grow with its length.
func TestFrontEndQueueAllocationsDoNotGrowWithTokens(t *testing.T) {
	d := anchor(t)
	d.FrontEndPerChunk = time.Microsecond
	allocs := func(tokens int) float64 {
		w := together(4, 16, tokens)
		return testing.AllocsPerRun(3, func() { simulate.Run(newEngine(t, d), w) })
	}
	short, long := allocs(100), allocs(2000)
	if long-short > 20 {
		t.Errorf("4 streams through the front end: %.0f allocations at 100 tokens each, %.0f at 2000; want about the same", short, long)
	}
}

// A request withdrawn while the front end is still taking it in never
// reaches the engine: the next request's prefill starts as soon as the
// front end hands that one over, not after a prefill of the withdrawn one.
func TestFrontEndCancelBeforeTheEngineSeesIt(t *testing.T) {
	d := anchor(t)
	d.FrontEndPerRequest = 10 * time.Millisecond
	e := newEngine(t, d)
	e.Add(0, &simulate.Request{ID: 1, PromptTokens: 8000, OutputTokens: 5})
	if at, ok := e.Next(); !ok || at <= 10*time.Millisecond {
		t.Fatalf("Next() = %v, %v; want the first step after the front end's 10ms", at, ok)
	}
	e.Cancel(5*time.Millisecond, 1)
	e.Add(6*time.Millisecond, &simulate.Request{ID: 2, PromptTokens: 16, OutputTokens: 1})
	got := drain(e)
	if len(got) != 1 || got[0].ID != 2 {
		t.Fatalf("emissions = %+v, want one of request 2", got)
	}
	// Request 2 is taken in from 10ms to 20ms, after request 1's intake.
	if q := got[0].Queue; q != 14*time.Millisecond {
		t.Errorf("request 2 arriving at 6ms: Queue = %v, want 14ms (taken in at 20ms; request 1 was withdrawn at 5ms)", q)
	}
}
