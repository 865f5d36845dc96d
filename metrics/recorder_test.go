package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// within reports whether got is within the Recorder's relative error of
// want, plus one microsecond of resolution.
func within(got, want time.Duration) bool {
	tol := time.Duration(float64(want)*RelativeError) + time.Microsecond
	return got >= want-tol && got <= want+tol
}

func TestRecorderPercentiles(t *testing.T) {
	r := NewRecorder(WithoutDetection())
	// TTFT of request i is i ms, i = 1..1000; ten tokens 5ms apart.
	for i := 1; i <= 1000; i++ {
		r.Record(context.Background(), stream(t, "a", "m", epoch.Add(time.Duration(i)*time.Second), 0,
			time.Duration(i)*time.Millisecond, 5*time.Millisecond, 10))
	}
	s := r.Snapshot()
	for _, c := range []struct {
		name      string
		got, want time.Duration
	}{
		{"TTFT.P50", s.TTFT.P50, 500 * time.Millisecond},
		{"TTFT.P90", s.TTFT.P90, 900 * time.Millisecond},
		{"TTFT.P95", s.TTFT.P95, 950 * time.Millisecond},
		{"TTFT.P99", s.TTFT.P99, 990 * time.Millisecond},
		{"TTFT.P999", s.TTFT.P999, 999 * time.Millisecond},
		{"TTFT.Max", s.TTFT.Max, 1000 * time.Millisecond},
		{"TTFT.Mean", s.TTFT.Mean, 500500 * time.Microsecond},
		{"ITL.P50", s.ITL.P50, 5 * time.Millisecond},
		{"ITL.Max", s.ITL.Max, 5 * time.Millisecond},
		{"TPOT.P99", s.TPOT.P99, 5 * time.Millisecond},
		{"E2E.P50", s.E2E.P50, 546 * time.Millisecond}, // 500 + 9·5 + 1
	} {
		if !within(c.got, c.want) {
			t.Errorf("Snapshot().%s = %v, want %v ± %.1f%%", c.name, c.got, c.want, 100*RelativeError)
		}
	}
	if s.TTFT.Count != 1000 || s.ITL.Count != 9000 || s.TPOT.Count != 1000 || s.E2E.Count != 1000 {
		t.Errorf("counts TTFT %d ITL %d TPOT %d E2E %d, want 1000 9000 1000 1000",
			s.TTFT.Count, s.ITL.Count, s.TPOT.Count, s.E2E.Count)
	}
}

func TestRecorderThroughputAndGoodput(t *testing.T) {
	r := NewRecorder(WithSLO(SLO{TTFT: 300 * time.Millisecond}), WithWindow(20*time.Second), WithoutDetection())
	ctx := context.Background()
	// Four requests over 10s: one good, one too slow for the SLO, one good
	// still though a policy recovered from a budget breach behind it (the
	// caller's view), one that failed.
	good := stream(t, "a", "m", epoch, 0, 100*time.Millisecond, 10*time.Millisecond, 11)
	slow := stream(t, "a", "m", epoch.Add(time.Second), 0, 400*time.Millisecond, 10*time.Millisecond, 11)
	recovered := stream(t, "a", "m", epoch.Add(2*time.Second), 0, 100*time.Millisecond, 10*time.Millisecond, 11)
	recovered.Breaches = []tokenpace.BudgetError{{Target: "b", Phase: tokenpace.PhaseGap}}
	failed := stream(t, "a", "m", epoch.Add(3*time.Second), 0, 100*time.Millisecond, 10*time.Millisecond, 11)
	failed.Err = &openai.Error{StatusCode: 503}
	failed.End = epoch.Add(10 * time.Second)
	for _, tm := range []*tokenpace.Timing{good, slow, recovered, failed} {
		r.Record(ctx, tm)
	}
	s := r.SnapshotAt(epoch.Add(10 * time.Second))
	check := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("Snapshot().%s = %v, want %v", name, got, want)
		}
	}
	check("Requests", float64(s.Requests), 4)
	check("Completed", float64(s.Completed), 3)
	check("Failed", float64(s.Failed), 1)
	check("Good", float64(s.Good), 2)
	check("Duration", s.Duration.Seconds(), 10)
	check("RequestThroughput", s.RequestThroughput, 0.3)
	check("OutputThroughput", s.OutputThroughput, 4.4)
	check("Goodput", s.Goodput, 0.2)
	check("TokenGoodput", s.TokenGoodput, 2.2)
	// The 20s window has 1s slots; at 10s it would cover 19 whole slots
	// and none of the current one, but the first request started 10s
	// before: the rates are over those 10s, as the totals' are.
	check("WindowRequestThroughput", s.WindowRequestThroughput, 3.0/10)
	check("WindowOutputThroughput", s.WindowOutputThroughput, 44.0/10)
	if s.Errors["503"] != 1 || s.Breaches["gap"] != 1 {
		t.Errorf("Errors = %v, Breaches = %v, want 503:1 and gap:1", s.Errors, s.Breaches)
	}
	// Thirty seconds later the window is empty, the totals are not.
	later := r.SnapshotAt(epoch.Add(40 * time.Second))
	check("later WindowOutputThroughput", later.WindowOutputThroughput, 0)
	check("later OutputThroughput", later.OutputThroughput, 4.4)
}

func TestRecorderNonStreaming(t *testing.T) {
	r := NewRecorder(WithWindow(20 * time.Second))
	r.Record(context.Background(), &tokenpace.Timing{Target: "a", Model: "m", Start: epoch, Sent: epoch,
		End: epoch.Add(2 * time.Second), OutputTokens: 38, PromptTokens: 10, UsageReported: true})
	s := r.SnapshotAt(epoch.Add(19 * time.Second))
	if s.E2E.Count != 1 || s.TTFT.Count != 0 || s.TPOT.Count != 0 || s.OutputThroughput != 19 || s.WindowOutputThroughput != 2 {
		t.Errorf("non-streaming call: E2E %d TTFT %d TPOT %d samples, %v tok/s, window %v tok/s; want 1 0 0, 19, 2",
			s.E2E.Count, s.TTFT.Count, s.TPOT.Count, s.OutputThroughput, s.WindowOutputThroughput)
	}
}

func TestRecorderWindowDropsOldCounts(t *testing.T) {
	w := newWindow(10 * time.Second) // 500ms slots
	w.add(epoch.Add(20*time.Second), 1, 10)
	w.add(epoch, 1, 1000) // its slot now holds newer time: dropped
	// At 21.25s the window covers 19 whole slots and a quarter of a second.
	req, tok := w.rates(epoch.Add(21250*time.Millisecond), epoch)
	if req != 1/9.75 || tok != 10/9.75 {
		t.Errorf("rates = %v req/s, %v tok/s, want %v and %v", req, tok, 1/9.75, 10/9.75)
	}
}

func TestRecorderPromptFit(t *testing.T) {
	r := NewRecorder(WithoutDetection())
	// TTFT = 50ms + 0.2ms per uncached prompt token; the cached tokens of
	// the last request do not count.
	for i, prompt := range []int{1000, 2000, 4000, 8000, 16000} {
		tm := stream(t, "a", "m", epoch.Add(time.Duration(i)*time.Second), 0,
			50*time.Millisecond+time.Duration(prompt)*200*time.Microsecond, 10*time.Millisecond, 4)
		tm.PromptTokens = prompt
		r.Record(context.Background(), tm)
	}
	cached := stream(t, "a", "m", epoch.Add(time.Minute), 0, 250*time.Millisecond, 10*time.Millisecond, 4)
	cached.PromptTokens, cached.CachedTokens = 9000, 8000
	r.Record(context.Background(), cached)

	f := r.Snapshot().PromptFit
	if f.N != 6 || !within(f.Intercept, 50*time.Millisecond) || !within(f.PerKToken, 200*time.Millisecond) || f.R2 < 0.999 {
		t.Errorf("PromptFit = %+v, want n 6, 50ms + 200ms per 1k tokens, R² 1", f)
	}
	if got, want := f.Predict(100_000), 20050*time.Millisecond; !within(got, want) {
		t.Errorf("Predict(100000) = %v, want %v", got, want)
	}
	if f.MinTokens != 1000 || f.MaxTokens != 16000 || !f.Meaningful() {
		t.Errorf("PromptFit range %d..%d, Meaningful() = %v, want 1000..16000, true", f.MinTokens, f.MaxTokens, f.Meaningful())
	}
	if !strings.Contains(r.Snapshot().String(), "TTFT ≈ 50.0 ms + 200.0 ms per 1k uncached prompt tokens") {
		t.Errorf("table lacks the fit:\n%s", r.Snapshot())
	}
}

func TestRecorderPromptFitNarrow(t *testing.T) {
	r := NewRecorder(WithoutDetection())
	for i, prompt := range []int{15, 16, 17, 16} {
		tm := stream(t, "a", "m", epoch.Add(time.Duration(i)*time.Second), 0, time.Duration(100+i)*time.Millisecond, 10*time.Millisecond, 4)
		tm.PromptTokens = prompt
		r.Record(context.Background(), tm)
	}
	s := r.Snapshot()
	if s.PromptFit.Meaningful() || strings.Contains(s.String(), "TTFT ≈") {
		t.Errorf("fit over prompts 15..17 tokens: Meaningful() = %v, table:\n%s\nwant no fit shown", s.PromptFit.Meaningful(), s)
	}
}

func TestRecorderPerTarget(t *testing.T) {
	r := NewRecorder(WithoutDetection())
	ctx := context.Background()
	r.Record(ctx, stream(t, "b", "m2", epoch, 0, 200*time.Millisecond, 10*time.Millisecond, 5))
	r.Record(ctx, stream(t, "a", "m1", epoch, 0, 100*time.Millisecond, 10*time.Millisecond, 5))
	r.Record(ctx, stream(t, "a", "m1", epoch, 0, 100*time.Millisecond, 10*time.Millisecond, 5))
	r.Record(ctx, nil)
	s := r.Snapshot()
	if len(s.Targets) != 2 || s.Targets[0].Target != "a" || s.Targets[1].Target != "b" {
		t.Fatalf("Targets = %+v, want a then b", s.Targets)
	}
	if s.Targets[0].Requests != 2 || s.Targets[1].Requests != 1 || s.Requests != 3 {
		t.Errorf("requests a %d b %d total %d, want 2 1 3", s.Targets[0].Requests, s.Targets[1].Requests, s.Requests)
	}
	if !within(s.Targets[1].TTFT.P50, 200*time.Millisecond) || !within(s.TTFT.Max, 200*time.Millisecond) {
		t.Errorf("TTFT b p50 %v, total max %v, want 200ms", s.Targets[1].TTFT.P50, s.TTFT.Max)
	}
	if s.Target != "" {
		t.Errorf("total Target = %q, want empty over two targets", s.Target)
	}
	r.Reset()
	if got := r.Snapshot(); got.Requests != 0 || got.Targets != nil {
		t.Errorf("after Reset: Snapshot = %+v, want empty", got)
	}
}

func TestRecorderSeriesBounded(t *testing.T) {
	r := NewRecorder(WithoutDetection())
	for i := range maxSeries + 10 {
		r.Record(context.Background(), stream(t, "t", fmt.Sprint("model-", i), epoch, 0, time.Millisecond, time.Millisecond, 2))
	}
	s := r.Snapshot()
	if len(s.Targets) != maxSeries+1 || s.Requests != maxSeries+10 {
		t.Fatalf("%d series, %d requests, want %d and %d", len(s.Targets), s.Requests, maxSeries+1, maxSeries+10)
	}
	var other *Snapshot
	for i := range s.Targets {
		if s.Targets[i].Target == "_other" {
			other = &s.Targets[i]
		}
	}
	if other == nil || other.Requests != 10 {
		t.Errorf("_other series = %+v, want 10 requests", other)
	}
}

func TestRecorderDetections(t *testing.T) {
	var mu sync.Mutex
	var seen []Detection
	r := NewRecorder(WithDetectionHandler(func(_ context.Context, d Detection) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, d)
	}))
	r.Record(context.Background(), stream(t, "a", "m", epoch, 0, 2*time.Second, 0, 40))
	s := r.Snapshot()
	if s.Detections[string(KindBufferingProxy)] != 1 || len(seen) != 1 {
		t.Errorf("Detections = %v, handler saw %d, want one %s", s.Detections, len(seen), KindBufferingProxy)
	}
}

func TestDetectionLogged(t *testing.T) {
	var buf strings.Builder
	r := NewRecorder(WithLogger(slog.New(slog.NewJSONHandler(&buf, nil))))
	r.Record(context.Background(), stream(t, "edge", "m", epoch, 0, 2*time.Second, 0, 40))
	var rec map[string]any
	if err := json.Unmarshal([]byte(buf.String()), &rec); err != nil {
		t.Fatalf("log %q: %v", buf.String(), err)
	}
	want := map[string]any{"level": "WARN", "kind": "buffering_proxy", "target": "edge", "model": "m", "hint": BufferingHint}
	for k, v := range want {
		if rec[k] != v {
			t.Errorf("log field %s = %v, want %v", k, rec[k], v)
		}
	}
}

func TestRecorderConcurrent(t *testing.T) {
	r := NewRecorder()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				r.Record(context.Background(), stream(t, string(rune('a'+g%3)), "m",
					epoch.Add(time.Duration(i)*time.Millisecond), 0, 50*time.Millisecond, time.Millisecond, 10))
				switch {
				case g == 0 && i == 50:
					r.Reset()
				case i%25 == 0:
					_ = r.Snapshot()
				}
			}
		})
	}
	wg.Wait()
	// One Reset in the middle: fewer than 800 requests remain, and every
	// remaining one has its ten tokens.
	if s := r.Snapshot(); s.Requests == 0 || s.Requests > 800 || s.OutputTokens != 10*s.Requests {
		t.Errorf("Snapshot() requests %d tokens %d, want 1..800 requests of 10 tokens", s.Requests, s.OutputTokens)
	}
}

func TestSnapshotJSON(t *testing.T) {
	r := NewRecorder(WithoutDetection())
	r.Record(context.Background(), stream(t, "a", "m", epoch, 0, 100*time.Millisecond, 10*time.Millisecond, 11))
	s := r.SnapshotAt(epoch.Add(time.Second))
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("json.Marshal(Snapshot) error: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"requests", "completed", "failed", "duration_s", "request_throughput",
		"output_throughput", "goodput", "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms", "prompt_fit"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON %s lacks %q", b, k)
		}
	}
	ttft, _ := m["ttft_ms"].(map[string]any)
	for _, k := range []string{"mean", "p50", "p90", "p95", "p99", "p999", "max"} {
		if _, ok := ttft[k].(float64); !ok {
			t.Errorf("ttft_ms = %v lacks %q", ttft, k)
		}
	}
	if got := ttft["p50"].(float64); math.Abs(got-100) > 0.1 {
		t.Errorf("ttft_ms.p50 = %v, want 100", got)
	}
	if got := m["duration_s"].(float64); math.Abs(got-0.201) > 1e-9 {
		t.Errorf("duration_s = %v, want 0.201", got)
	}
	var back Snapshot
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("json.Unmarshal error: %v", err)
	}
	if back.TTFT != s.TTFT || back.Duration != s.Duration || back.Requests != s.Requests {
		t.Errorf("round trip = %+v, want %+v", back, s)
	}
}

func TestSnapshotTable(t *testing.T) {
	r := NewRecorder()
	ctx := context.Background()
	r.Record(ctx, stream(t, "a", "m", epoch, 0, 100*time.Millisecond, 10*time.Millisecond, 11))
	failed := stream(t, "b", "m", epoch, 0, 2*time.Second, 0, 11)
	failed.Err = errors.New("boom")
	r.Record(ctx, failed)
	out := r.Snapshot().String()
	for _, want := range []string{"requests 2  completed 1  failed 1", "TTFT", "p99.9", "E2E",
		"errors: *errors.errorString=1", "detections: buffering_proxy=1", "target"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestSnapshotTableWriteError(t *testing.T) {
	if err := (Snapshot{}).WriteTable(failWriter{}); err == nil || err.Error() != "disk full" {
		t.Errorf("WriteTable(failing writer) = %v, want disk full", err)
	}
}

// TestPromptFitUsesAnsweringAttempt: the TTFT-vs-prompt fit models the
// server that answered: for Router calls that fell back after 180 ms, it
// fits the answering attempt's own TTFT (50 ms + 100 ms per 1000 tokens),
// not the caller's, which also holds the 180 ms lost on the first route.
func TestPromptFitUsesAnsweringAttempt(t *testing.T) {
	r := NewRecorder(WithoutDetection())
	start := time.Unix(1_700_000_000, 0)
	for i, prompt := range []int{1000, 2000, 4000, 8000} {
		t0 := start.Add(time.Duration(i) * time.Minute)
		sent2 := t0.Add(180 * time.Millisecond)
		first := sent2.Add(50*time.Millisecond + time.Duration(prompt/10)*time.Millisecond)
		r.Record(context.Background(), &tokenpace.Timing{
			Target: "small", Model: "m", Stream: true, Start: t0, Sent: t0,
			Chunks: []time.Time{first, first.Add(10 * time.Millisecond)}, End: first.Add(20 * time.Millisecond),
			UsageReported: true, PromptTokens: prompt, OutputTokens: 2,
			Attempts: []tokenpace.Attempt{
				{Target: "big", Kind: tokenpace.AttemptFirst, Start: t0, Sent: t0, End: sent2, Outcome: tokenpace.OutcomeBreached},
				{Target: "small", Kind: tokenpace.AttemptFallback, Start: sent2, Sent: sent2, FirstToken: first, End: first.Add(20 * time.Millisecond), Tokens: 2, Outcome: tokenpace.OutcomeWon},
			},
		})
	}
	f := r.Snapshot().PromptFit
	if d := f.Intercept - 50*time.Millisecond; d < -time.Millisecond || d > time.Millisecond {
		t.Errorf("PromptFit.Intercept = %v, want 50ms", f.Intercept)
	}
	if d := f.PerKToken - 100*time.Millisecond; d < -time.Millisecond || d > time.Millisecond {
		t.Errorf("PromptFit.PerKToken = %v, want 100ms", f.PerKToken)
	}
}
