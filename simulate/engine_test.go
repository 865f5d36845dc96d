package simulate_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// anchor is the seed's sanity anchor: a 70B model at 4 bits (35 GB) on a
// 1000 GB/s device at MBU 1, with no step overhead and ample compute.
func anchor(t *testing.T) simulate.Deployment {
	t.Helper()
	gpu, err := simulate.CustomGPU(1000, 1000, 1000)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simulate.CustomModel(70, simulate.ModelShape{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := simulate.CustomPrecision(4)
	if err != nil {
		t.Fatal(err)
	}
	return simulate.Deployment{GPU: gpu, Model: m, Precision: p, MBU: 1, MFU: 1, StepOverhead: -1, DequantOps: -1, Ridge: -1}
}

func newEngine(t *testing.T, d simulate.Deployment) *simulate.Engine {
	t.Helper()
	e, err := simulate.NewEngine(d)
	if err != nil {
		t.Fatalf("NewEngine: %v", err)
	}
	return e
}

func run(t *testing.T, d simulate.Deployment, w []simulate.Arrival) []simulate.Result {
	t.Helper()
	return simulate.Run(newEngine(t, d), w)
}

func TestSeedAnchor(t *testing.T) {
	e := newEngine(t, anchor(t))
	c := e.StepCost(simulate.Load{DecodeSeqs: 1, DecodeTokens: 1})
	if c.Time != 35*time.Millisecond || c.Bound != simulate.MemoryBound {
		t.Errorf("decode step of 35 GB at 1000 GB/s = %v (%s), want 35ms (memory)", c.Time, c.Bound)
	}
	two := anchor(t)
	two.GPUs = 2
	two.AllReduce = -1
	if got := newEngine(t, two).StepCost(simulate.Load{DecodeSeqs: 1, DecodeTokens: 1}).Time; got != 35*time.Millisecond/2 {
		t.Errorf("decode step over 2 GPUs = %v, want %v", got, 35*time.Millisecond/2)
	}
	two.Runtime = simulate.RuntimeLlamaCpp // layer split: the GPUs take turns
	if got := newEngine(t, two).StepCost(simulate.Load{DecodeSeqs: 1, DecodeTokens: 1}).Time; got != 35*time.Millisecond {
		t.Errorf("decode step split by layers over 2 GPUs = %v, want %v", got, 35*time.Millisecond)
	}
}

func TestDecodeStepIsMaxOfMemoryAndCompute(t *testing.T) {
	d := anchor(t)
	d.MFU = 0.001 // 1 TFLOPS effective: 140 GFLOP per token costs 140 ms
	e := newEngine(t, d)
	for _, tc := range []struct {
		batch int
		bound simulate.Bound
	}{{1, simulate.ComputeBound}, {16, simulate.ComputeBound}} {
		c := e.StepCost(simulate.Load{DecodeSeqs: tc.batch, DecodeTokens: tc.batch})
		if c.Bound != tc.bound || c.Time != max(c.Memory, c.Compute) {
			t.Errorf("StepCost(batch %d) = %v (%s, memory %v, compute %v), want the max, %s-bound", tc.batch, c.Time, c.Bound, c.Memory, c.Compute, tc.bound)
		}
	}
	e = newEngine(t, anchor(t))
	for _, tc := range []struct {
		batch int
		bound simulate.Bound
	}{{1, simulate.MemoryBound}, {64, simulate.MemoryBound}, {1024, simulate.ComputeBound}} {
		c := e.StepCost(simulate.Load{DecodeSeqs: tc.batch, DecodeTokens: tc.batch})
		if c.Bound != tc.bound || c.Time != max(c.Memory, c.Compute) {
			t.Errorf("StepCost(batch %d) = %v (%s, memory %v, compute %v), want the max, %s-bound", tc.batch, c.Time, c.Bound, c.Memory, c.Compute, tc.bound)
		}
	}
}

// A step that prefills combines its memory and compute times with
// PrefillRidge, a decode step with Ridge; Ridge alone sets both.
func TestPrefillStepUsesPrefillRidge(t *testing.T) {
	roof := func(m, c time.Duration, k float64) time.Duration {
		hi, lo := float64(max(m, c)), float64(min(m, c))
		return time.Duration(math.Round(hi * math.Pow(1+math.Pow(lo/hi, k), 1/k)))
	}
	near := func(got, want time.Duration) bool { return got-want <= 1 && want-got <= 1 }
	d := anchor(t)
	d.Ridge, d.PrefillRidge = 3, 1.5
	e := newEngine(t, d)
	prefill := simulate.Load{PrefillTokens: 128, PrefillPairs: 128 * 129 / 2}
	decode := simulate.Load{DecodeSeqs: 128, DecodeTokens: 128, DecodeContext: 128}
	for _, tc := range []struct {
		name string
		l    simulate.Load
		k    float64
	}{{"prefill", prefill, 1.5}, {"decode", decode, 3}} {
		c := e.StepCost(tc.l)
		if want := roof(c.Memory, c.Compute, tc.k); !near(c.Time-c.Overhead, want) {
			t.Errorf("%s step: %v (memory %v, compute %v, overhead %v), want %v + overhead (k = %v)", tc.name, c.Time, c.Memory, c.Compute, c.Overhead, want, tc.k)
		}
	}
	d = anchor(t) // Ridge -1, PrefillRidge unset: the plain max everywhere
	r, err := d.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	if r.PrefillRidge != -1 {
		t.Errorf("Ridge -1 resolved PrefillRidge to %v, want -1", r.PrefillRidge)
	}
	if c := newEngine(t, d).StepCost(prefill); c.Time-c.Overhead != max(c.Memory, c.Compute) {
		t.Errorf("prefill step at Ridge -1: %v, want the max of memory %v and compute %v + overhead %v", c.Time, c.Memory, c.Compute, c.Overhead)
	}
}

func TestLongPromptCostsDisproportionately(t *testing.T) {
	d := simulate.Deployment{} // Llama 3.1 8B on an H100
	ttft := func(prompt int) time.Duration {
		r := run(t, d, simulate.Identical(1, simulate.Request{PromptTokens: prompt, OutputTokens: 1}))
		return r[0].TTFT
	}
	short, long := ttft(2000), ttft(100000)
	if ratio := float64(long) / float64(short); ratio < 2*50 {
		t.Errorf("TTFT(100k) / TTFT(2k) = %v / %v = %.1f, want > 100 (50× the tokens, attention grows with context)", long, short, ratio)
	}
}

func TestPrefixCacheSkipsCachedPrefill(t *testing.T) {
	d := simulate.Deployment{}
	e := newEngine(t, d)
	const prompt, cached = 4096, 4010 // 4010 rounds down to 4000 (250 blocks of 16)
	e.WarmPrefix("system", cached)
	r := simulate.Run(e, simulate.Identical(1, simulate.Request{PromptTokens: prompt, PrefixKey: "system", PrefixTokens: cached, OutputTokens: 1}))
	const hit = 4000
	if r[0].CachedTokens != hit {
		t.Fatalf("CachedTokens = %d, want %d", r[0].CachedTokens, hit)
	}
	n := prompt - hit
	write := e.Deployment().FrontEndPerChunk // the front end writes the first token after the step
	want := e.StepCost(simulate.Load{PrefillTokens: n, PrefillPairs: float64(n)*hit + float64(n)*float64(n+1)/2, PrefillContext: hit}).Time + write
	if r[0].TTFT != want {
		t.Errorf("cached TTFT = %v, want %v (prefill of the %d uncached tokens)", r[0].TTFT, want, n)
	}
	cold := run(t, d, simulate.Identical(1, simulate.Request{PromptTokens: prompt, OutputTokens: 1}))[0]
	wantCold := e.StepCost(simulate.Load{PrefillTokens: prompt, PrefillPairs: float64(prompt) * float64(prompt+1) / 2}).Time + write
	if cold.TTFT != wantCold || cold.CachedTokens != 0 {
		t.Errorf("uncached TTFT = %v (cached %d), want %v (0)", cold.TTFT, cold.CachedTokens, wantCold)
	}
	if r[0].TTFT*5 > cold.TTFT {
		t.Errorf("cached TTFT %v not well below uncached %v", r[0].TTFT, cold.TTFT)
	}
	if got := e.Stats().PrefixHits; got != hit {
		t.Errorf("Stats().PrefixHits = %d, want %d", got, hit)
	}
}

func TestPrefixCacheFilledByEarlierRequest(t *testing.T) {
	w := []simulate.Arrival{
		{At: 0, Request: simulate.Request{ID: 1, PromptTokens: 1000, PrefixKey: "k", PrefixTokens: 800, OutputTokens: 2}},
		{At: time.Second, Request: simulate.Request{ID: 2, PromptTokens: 1000, PrefixKey: "k", PrefixTokens: 800, OutputTokens: 2}},
		{At: time.Second, Request: simulate.Request{ID: 3, PromptTokens: 1000, PrefixKey: "other", PrefixTokens: 800, OutputTokens: 2}},
	}
	for _, tc := range []struct {
		disable bool
		want    [3]int
	}{{false, [3]int{0, 800, 0}}, {true, [3]int{0, 0, 0}}} {
		r := run(t, simulate.Deployment{DisablePrefixCaching: tc.disable}, w)
		for i := range r {
			if r[i].CachedTokens != tc.want[i] {
				t.Errorf("disable=%v: request %d CachedTokens = %d, want %d", tc.disable, r[i].ID, r[i].CachedTokens, tc.want[i])
			}
		}
	}
}

func TestQueueingWhenSlotsAreFull(t *testing.T) {
	d := anchor(t)
	d.MaxRunning = 2
	r := run(t, d, simulate.Identical(3, simulate.Request{PromptTokens: 10, OutputTokens: 5}))
	if r[0].Queue != 0 || r[1].Queue != 0 {
		t.Errorf("queue of the first two = %v, %v, want 0, 0", r[0].Queue, r[1].Queue)
	}
	if r[2].Queue != r[0].E2E {
		t.Errorf("queue of the third = %v, want %v (when a slot freed)", r[2].Queue, r[0].E2E)
	}
	if r[2].TTFT != r[2].Queue+r[2].Prefill {
		t.Errorf("TTFT = %v, want queue %v + prefill %v", r[2].TTFT, r[2].Queue, r[2].Prefill)
	}
}

func TestContinuousBatchingJoinsAtStepBoundary(t *testing.T) {
	d := anchor(t)
	first := run(t, d, simulate.Identical(1, simulate.Request{PromptTokens: 10, OutputTokens: 20}))[0]
	mid := first.Chunks[5] + time.Millisecond // during the step that ends at Chunks[6]
	r := run(t, d, []simulate.Arrival{
		{Request: simulate.Request{ID: 1, PromptTokens: 10, OutputTokens: 20}},
		{At: mid, Request: simulate.Request{ID: 2, PromptTokens: 10, OutputTokens: 3}},
	})
	a, b := r[0], r[1]
	if want := first.Chunks[6] - mid; b.Queue != want {
		t.Errorf("joiner's queue = %v, want %v (until the next step boundary)", b.Queue, want)
	}
	// The joiner's prefill shares a step with the running decode.
	if got, want := a.Chunks[7], b.Arrival+b.TTFT; got != want {
		t.Errorf("running sequence's token 8 at %v, joiner's first token at %v: want one shared step", got, want)
	}
	if a.Done != true || len(a.Chunks) != 20 {
		t.Errorf("running sequence: done %v with %d chunks, want true with 20", a.Done, len(a.Chunks))
	}
}

func TestKVOffloadSlowsByHostLinkRatio(t *testing.T) {
	d := anchor(t)
	d.GPU.HostLinkGBs = 10 // 1/100 of VRAM bandwidth
	e := newEngine(t, d)
	const ctx = 100000
	kv := float64(ctx) * d.Model.KVBytesPerToken(16)
	base := e.StepCost(simulate.Load{DecodeSeqs: 1, DecodeTokens: 1})
	on := e.StepCost(simulate.Load{DecodeSeqs: 1, DecodeTokens: 1, DecodeContext: ctx})
	off := e.StepCost(simulate.Load{DecodeSeqs: 1, DecodeTokens: 1, DecodeContext: ctx, Offloaded: 1})
	inVRAM, inHost := on.Memory-base.Memory, off.Memory-base.Memory
	if want := time.Duration(math.Round(kv / 1e12 * 1e9)); inVRAM != want {
		t.Errorf("KV read from VRAM = %v, want %v", inVRAM, want)
	}
	if ratio := float64(inHost) / float64(inVRAM); math.Abs(ratio-100) > 0.01 {
		t.Errorf("offloaded / resident KV read time = %.3f, want 100 (VRAM / host-link bandwidth)", ratio)
	}
}

func TestKVOffloadInEngine(t *testing.T) {
	d := anchor(t)
	d.GPU.HostLinkGBs = 10
	d.KVCapacityTokens = 160 // 10 blocks; offload past 9
	e := newEngine(t, d)
	r := simulate.Run(e, simulate.Identical(1, simulate.Request{PromptTokens: 16 * 8, OutputTokens: 40}))[0]
	itl := r.ITL()
	// itl[i] is the step run with i+1 tokens generated: context 129+i.
	// Up to 144 tokens fit in 9 blocks, resident; from 145 a 10th block
	// is past the threshold and a tenth of the KV cache lives in host memory.
	for _, tc := range []struct {
		i         int
		offloaded float64
	}{{10, 0}, {15, 0}, {16, 0.1}, {30, 0.1}} {
		ctx := int64(129 + tc.i)
		want := e.StepCost(simulate.Load{DecodeSeqs: 1, DecodeTokens: 1, DecodeContext: ctx, Offloaded: tc.offloaded}).Time
		if itl[tc.i] != want {
			t.Errorf("ITL at context %d = %v, want %v (offloaded share %v)", ctx, itl[tc.i], want, tc.offloaded)
		}
	}
	if st := e.Stats(); st.Running != 0 || st.KVUsage != 0 {
		t.Errorf("Stats() after the run = %+v, want empty", st)
	}
}

func TestPreemptionRecomputesAndCompletes(t *testing.T) {
	d := anchor(t)
	d.KVPolicy = simulate.KVPreempt
	d.KVCapacityTokens = 64 // 4 blocks of 16
	e := newEngine(t, d)
	r := simulate.Run(e, simulate.Identical(2, simulate.Request{PromptTokens: 16, OutputTokens: 48}))
	a, b := r[0], r[1]
	if got := e.Stats().Preemptions; got != 1 {
		t.Errorf("Preemptions = %d, want 1", got)
	}
	for _, x := range r {
		if !x.Done || x.OutputTokens != 48 {
			t.Errorf("request %d: done %v with %d tokens, want true with 48", x.ID, x.Done, x.OutputTokens)
		}
	}
	// b (the newest) is evicted and resumes only once a finishes.
	resumed := false
	for i := 1; i < len(b.Chunks); i++ {
		if b.Chunks[i-1] < a.E2E && b.Chunks[i] > a.E2E {
			resumed = true
		}
	}
	if !resumed || b.E2E <= a.E2E {
		t.Errorf("evicted request's chunks %v do not resume after the other ends at %v", b.Chunks, a.E2E)
	}
}

func TestSpeculativeDecodingSpeedup(t *testing.T) {
	spec := simulate.Speculation{DraftTokens: 4, Acceptance: 0.8}
	const e = 3.3616 // (1 − 0.8^5) / (1 − 0.8)
	if got := spec.TokensPerStep(); math.Abs(got-e) > 1e-12 {
		t.Fatalf("TokensPerStep(k=4, α=0.8) = %v, want %v", got, e)
	}
	d := anchor(t)
	plain := run(t, d, simulate.Identical(1, simulate.Request{PromptTokens: 10, OutputTokens: 1001}))[0]
	d.Speculation = spec
	fast := run(t, d, simulate.Identical(1, simulate.Request{PromptTokens: 10, OutputTokens: 1001}))[0]
	// The first token comes from prefill; 1000 more take ceil(1000 / 3.3616) = 298 verify steps.
	if len(fast.Chunks) != 1+298 || fast.OutputTokens != 1001 {
		t.Errorf("speculative run: %d emissions of %d tokens, want 299 of 1001", len(fast.Chunks), fast.OutputTokens)
	}
	speedup := float64(plain.TPOT()) / float64(fast.TPOT())
	if speedup < 3.3 || speedup > e {
		t.Errorf("TPOT speedup = %.4f, want just under %.4f (memory-bound verify of 5 tokens costs one step)", speedup, e)
	}
}

func TestCancelFreesSlot(t *testing.T) {
	d := anchor(t)
	d.MaxRunning = 1
	e := newEngine(t, d)
	e.Add(0, &simulate.Request{ID: 1, PromptTokens: 10, OutputTokens: 100})
	e.Add(0, &simulate.Request{ID: 2, PromptTokens: 10, OutputTokens: 2})
	e.Add(0, &simulate.Request{ID: 3, PromptTokens: 10, OutputTokens: 2})
	e.Cancel(0, 3)  // still queued
	e.Cancel(0, 99) // unknown: ignored
	var firstAt time.Duration
	var got []simulate.Emission
	emit := func(em simulate.Emission) { got = append(got, em) }
	at, ok := e.Next()
	if !ok {
		t.Fatal("Next() = false with a request running")
	}
	e.AdvanceTo(at, emit)
	firstAt = at
	if st := e.Stats(); st.Running != 1 || st.Waiting != 1 {
		t.Errorf("Stats() = %+v, want 1 running, 1 waiting", st)
	}
	e.Cancel(firstAt, 1)
	got = append(got, drain(e)...)
	var two []simulate.Emission
	for _, em := range got {
		switch em.ID {
		case 2:
			two = append(two, em)
		case 3:
			t.Errorf("cancelled queued request emitted %+v", em)
		}
	}
	if len(two) != 2 || !two[0].First || two[0].Queue != firstAt || !two[1].Done {
		t.Errorf("request 2 emissions = %+v, want 2, the first queued %v", two, firstAt)
	}
	if st := e.Stats(); st.Running != 0 || st.Waiting != 0 || st.KVUsage != 0 {
		t.Errorf("Stats() at the end = %+v, want idle", st)
	}
}

func TestStopsAtMaxTokens(t *testing.T) {
	e := newEngine(t, anchor(t))
	r := simulate.Run(e, simulate.Identical(1, simulate.Request{PromptTokens: 10, OutputTokens: 5}))[0]
	if r.OutputTokens != 5 || len(r.Chunks) != 5 || !r.Done {
		t.Errorf("OutputTokens 5: got %d tokens in %d chunks (done %v), want 5 in 5 (true)", r.OutputTokens, len(r.Chunks), r.Done)
	}
	if _, ok := e.Next(); ok {
		t.Error("Next() = true after the only request finished, want false")
	}
	if got := e.Stats().GeneratedTotal; got != 5 {
		t.Errorf("GeneratedTotal = %d, want 5", got)
	}
}

func TestChunkedPrefillInterleavesWithDecode(t *testing.T) {
	d := anchor(t)
	d.MaxBatchedTokens = 512
	d.MaxRunning = 8
	r := run(t, d, []simulate.Arrival{
		{Request: simulate.Request{ID: 1, PromptTokens: 10, OutputTokens: 50}},
		{At: time.Millisecond, Request: simulate.Request{ID: 2, PromptTokens: 2000, OutputTokens: 1}},
	})
	a, b := r[0], r[1]
	// 2000 tokens with 511 per step (one goes to the decoder) take 4 steps,
	// and the decoder emits at every one of them.
	n := 0
	for _, c := range a.Chunks {
		if c > b.Arrival+b.Queue && c <= b.Arrival+b.TTFT {
			n++
		}
	}
	if n != 4 {
		t.Errorf("decoder emitted %d times during the chunked prefill, want 4", n)
	}
}

func TestDeploymentErrors(t *testing.T) {
	big, _ := simulate.LookupModel("llama-3.1-405b")
	for _, tc := range []struct {
		name string
		d    simulate.Deployment
	}{
		{"does not fit", simulate.Deployment{Model: big}},
		{"negative GPUs", simulate.Deployment{GPUs: -1}},
		{"MBU above 1", simulate.Deployment{MBU: 1.5}},
		{"negative MFU", simulate.Deployment{MFU: -0.5}},
		{"acceptance 1", simulate.Deployment{Speculation: simulate.Speculation{DraftTokens: 4, Acceptance: 1}}},
		{"budget below batch", simulate.Deployment{MaxBatchedTokens: 100}},
		{"bad GPU", simulate.Deployment{GPU: simulate.GPU{Name: "x", BandwidthGBs: -1}}},
		{"infinite GPU", simulate.Deployment{GPU: simulate.GPU{Name: "x", BandwidthGBs: math.Inf(1), FP16TFLOPS: 1, MemoryGB: 1, HostLinkGBs: 1}}},
		{"NaN MBU", simulate.Deployment{MBU: math.NaN()}},
		{"NaN model", simulate.Deployment{Model: simulate.Model{ParamsB: math.NaN(), Layers: 1, Hidden: 1, Heads: 1}}},
	} {
		_, err := simulate.NewEngine(tc.d)
		var ie *simulate.InvalidError
		if !errors.As(err, &ie) || !errors.Is(err, simulate.ErrInvalid) {
			t.Errorf("NewEngine(%s) = %v, want an *InvalidError", tc.name, err)
		}
	}
	tp := simulate.Deployment{Model: big, GPUs: 8, Precision: simulate.FP8}
	if _, err := simulate.NewEngine(tp); err != nil {
		t.Errorf("NewEngine(405B fp8 on 8 H100) = %v, want it to fit", err)
	}
}

func TestLateAddNeverStartsBeforeArrival(t *testing.T) {
	e := newEngine(t, anchor(t))
	e.Add(0, &simulate.Request{ID: 1, PromptTokens: 10, OutputTokens: 5})
	first, _ := e.Next()
	arrival := first + 10*time.Millisecond // after the planned step ends, with no AdvanceTo in between
	e.Add(arrival, &simulate.Request{ID: 2, PromptTokens: 10, OutputTokens: 2})
	for {
		at, ok := e.Next()
		if !ok {
			break
		}
		e.AdvanceTo(at, func(em simulate.Emission) {
			if em.ID == 2 && em.First && (em.Queue < 0 || em.At-em.Prefill-em.Queue != arrival) {
				t.Errorf("late request: first token at %v, queue %v, prefill %v; want its prefill to start at or after %v", em.At, em.Queue, em.Prefill, arrival)
			}
		})
	}
}

func TestResolvedIsIdempotent(t *testing.T) {
	for _, d := range []simulate.Deployment{{}, anchor(t), {StepOverhead: -1, AllReduce: -1, GPUs: 2}} {
		once, err := d.Resolved()
		if err != nil {
			t.Fatal(err)
		}
		twice, err := once.Resolved()
		if err != nil || twice != once {
			t.Errorf("Resolved(Resolved(%+v)) = %+v, %v; want %+v", d, twice, err, once)
		}
	}
}

func TestCancelDuringChunkedPrefill(t *testing.T) {
	d := anchor(t)
	d.MaxBatchedTokens = 512
	e := newEngine(t, d)
	e.Add(0, &simulate.Request{ID: 1, PromptTokens: 5000, OutputTokens: 5})
	e.Add(0, &simulate.Request{ID: 2, PromptTokens: 100, OutputTokens: 2})
	at, _ := e.Next()
	e.AdvanceTo(at, func(em simulate.Emission) { t.Errorf("emission %+v before any prefill completed", em) })
	if st := e.Stats(); st.Running != 2 || st.KVUsage == 0 || st.PromptTokens != 5100 {
		t.Errorf("Stats() mid-prefill = %+v, want 2 running with KV in use and 5100 prompt tokens", st)
	}
	e.Cancel(at, 1)
	got := drain(e)
	if len(got) != 2 || got[0].ID != 2 || got[1].ID != 2 || !got[1].Done {
		t.Errorf("emissions after cancelling request 1 = %+v, want request 2's two tokens", got)
	}
	if st := e.Stats(); st.Running != 0 || st.KVUsage != 0 {
		t.Errorf("Stats() at the end = %+v, want idle with no KV in use", st)
	}
}

func TestStatsReportOffload(t *testing.T) {
	d := anchor(t)
	d.KVCapacityTokens = 160
	e := newEngine(t, d)
	e.Add(0, &simulate.Request{ID: 1, PromptTokens: 400, OutputTokens: 3})
	at, _ := e.Next()
	e.AdvanceTo(at, func(simulate.Emission) {})
	if st := e.Stats(); !st.Offloaded || st.KVUsage != 1 {
		t.Errorf("Stats() with 400 tokens in a 160-token cache = %+v, want offloaded at usage 1", st)
	}
}

func TestSharedPrefixBlocksCountOnce(t *testing.T) {
	d := anchor(t)
	d.KVCapacityTokens = 16000 // 1000 blocks
	e := newEngine(t, d)
	e.WarmPrefix("system", 4000) // 250 blocks
	const n = 32
	for i := range n {
		e.Add(0, &simulate.Request{ID: uint64(i + 1), PromptTokens: 4100, PrefixKey: "system", PrefixTokens: 4000, OutputTokens: 20})
	}
	at, _ := e.Next()
	e.AdvanceTo(at, func(simulate.Emission) {})
	// Each request holds its own 100 prompt tokens and first output token
	// (7 blocks of 16), and all read the same 250 prefix blocks.
	want := float64(250+n*7) / 1000
	if st := e.Stats(); st.KVUsage != want || st.Offloaded {
		t.Errorf("Stats() = %+v, want KV usage %v without offload (32 × 4100 tokens unshared would need 8224 blocks)", st, want)
	}
	drain(e)
	if st := e.Stats(); st.KVUsage != 0 {
		t.Errorf("Stats().KVUsage after the run = %v, want 0 (the idle prefix is evictable)", st.KVUsage)
	}
}

func TestIdlePrefixesAreEvictedLRU(t *testing.T) {
	d := anchor(t)
	d.KVCapacityTokens = 1600 // 100 blocks
	e := newEngine(t, d)
	e.WarmPrefix("a", 640) // 40 blocks
	e.WarmPrefix("b", 640) // 40 blocks
	e.WarmPrefix("c", 640) // 40 more: "a", least recently used, goes
	r := simulate.Run(e, []simulate.Arrival{
		{Request: simulate.Request{ID: 1, PromptTokens: 650, PrefixKey: "c", PrefixTokens: 640, OutputTokens: 1}},
		{At: time.Second, Request: simulate.Request{ID: 2, PromptTokens: 650, PrefixKey: "a", PrefixTokens: 640, OutputTokens: 1}},
	})
	if r[0].CachedTokens != 640 || r[1].CachedTokens != 0 {
		t.Errorf("cached tokens = %d, %d; want 640 and 0 (evicted)", r[0].CachedTokens, r[1].CachedTokens)
	}
}

// An all-reduce's bytes take their time at the share of the peer link
// that Deployment.AllReduceShare says: a ring moves 2(n−1)/n of a token's
// fp16 activations through each GPU's link, twice per layer.
func TestAllReduceShare(t *testing.T) {
	d := anchor(t)
	d.GPUs = 2
	d.AllReduce = time.Nanosecond // latency out of the way; bytes priced
	d.PrefillOverhead = -1
	const tokens = 4096
	l := simulate.Load{PrefillTokens: tokens, PrefillPairs: float64(tokens) * (tokens + 1) / 2}
	overhead := func(share float64) time.Duration {
		d := d
		d.AllReduceShare = share
		return newEngine(t, d).StepCost(l).Overhead
	}
	full, half := overhead(1), overhead(0.5)
	m := d.Model
	layers := time.Duration(2*m.Layers) * time.Nanosecond
	// bytes per token: 2 all-reduces per layer × hidden × 2 bytes × 2(n−1)/n
	perToken := 2 * float64(m.Layers) * 2 * float64(m.Hidden) * 2 * 0.5
	want := time.Duration(perToken * tokens / (d.GPU.PeerLinkGBs * 1e9) * 1e9)
	if d.GPU.PeerLinkGBs == 0 {
		want = time.Duration(perToken * tokens / (d.GPU.HostLinkGBs * 1e9) * 1e9)
	}
	if diff := full - layers - want; diff < -time.Microsecond || diff > time.Microsecond {
		t.Errorf("all-reduce bytes at share 1 take %v, want %v", full-layers, want)
	}
	if diff := (half - layers) - 2*(full-layers); diff < -time.Microsecond || diff > time.Microsecond {
		t.Errorf("all-reduce bytes at share 0.5 take %v, want twice %v", half-layers, full-layers)
	}
	def, err := (simulate.Deployment{GPUs: 2}).Resolved()
	if err != nil {
		t.Fatal(err)
	}
	if def.AllReduceShare <= 0 || def.AllReduceShare >= 1 {
		t.Errorf("an H100 pair's default all-reduce share = %v, want the class's share in (0, 1)", def.AllReduceShare)
	}
}
