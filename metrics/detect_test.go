package metrics

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace"
)

func TestDetectorBuffering(t *testing.T) {
	burst := func(n int, ttft, spacing time.Duration) *tokenpace.Timing {
		tm := stream(t, "a", "m", epoch, 0, ttft, spacing, n)
		return tm
	}
	sse := tokenpace.StreamHeaders{ContentType: "text/event-stream"}
	headers := func(tm *tokenpace.Timing, h tokenpace.StreamHeaders, err error) *tokenpace.Timing {
		tm.Streaming, tm.Err = h, err
		if err != nil {
			tm.Chunks, tm.OutputTokens = nil, 0
		}
		return tm
	}
	json := tokenpace.StreamHeaders{ContentType: "application/json"}
	tests := []struct {
		name      string
		tm        *tokenpace.Timing
		want      bool
		wantAccel bool // the Message names the missing X-Accel-Buffering: no
	}{
		{"all chunks in one instant after 2s", burst(50, 2*time.Second, 0), true, false},
		{"chunks 100µs apart after 2s", burst(50, 2*time.Second, 100*time.Microsecond), true, false},
		{"steady 20ms decode", burst(50, 200*time.Millisecond, 20*time.Millisecond), false, false},
		{"fast 3ms decode", burst(50, 200*time.Millisecond, 3*time.Millisecond), false, false},
		{"too few chunks to judge", burst(3, 2*time.Second, 0), false, false},
		{"burst spans a large share of a short TTFT", burst(50, 10*time.Millisecond, time.Millisecond), false, false},
		{"burst without X-Accel-Buffering: no", headers(burst(50, 2*time.Second, 0), sse, nil), true, true},
		{"burst with X-Accel-Buffering: no", headers(burst(50, 2*time.Second, 0),
			tokenpace.StreamHeaders{ContentType: "text/event-stream", AccelBuffering: "no"}, nil), true, false},
		{"steady decode without X-Accel-Buffering: no", headers(burst(50, 200*time.Millisecond, 20*time.Millisecond), sse, nil), false, false},
		{"a stream Helicone replayed from its cache", headers(burst(50, 60*time.Millisecond, 0),
			tokenpace.StreamHeaders{ContentType: "text/event-stream", Cache: "HIT"}, nil), false, false},
		{"a burst its gateway's cache missed", headers(burst(50, 2*time.Second, 0),
			tokenpace.StreamHeaders{ContentType: "text/event-stream", Cache: "MISS"}, nil), true, true},
		{"2xx response that is not an event stream", headers(burst(1, time.Second, 0), json,
			&tokenpace.StreamError{Kind: tokenpace.KindContentType, Detail: "application/json"}), true, false},
		{"error status with a JSON body", headers(burst(1, time.Second, 0), json,
			&tokenpace.StreamError{Kind: tokenpace.KindRequest}), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDetector(DetectorConfig{})
			ds := d.Observe(nil, tt.tm)
			got := len(ds) == 1 && ds[0].Kind == KindBufferingProxy
			if got != tt.want {
				t.Fatalf("Observe(%s) = %+v, want buffering %v", tt.name, ds, tt.want)
			}
			if !got {
				return
			}
			wantAt := tt.tm.Headers
			if len(tt.tm.Chunks) > 0 {
				wantAt = tt.tm.Chunks[0]
			}
			if ds[0].Hint != BufferingHint || ds[0].At != wantAt {
				t.Errorf("detection = %+v, want hint %q at %v", ds[0], BufferingHint, wantAt)
			}
			if accel := strings.Contains(ds[0].Message, "X-Accel-Buffering"); accel != tt.wantAccel {
				t.Errorf("Message = %q: names X-Accel-Buffering %v, want %v", ds[0].Message, accel, tt.wantAccel)
			}
		})
	}
}

func TestDetectorTPSCollapse(t *testing.T) {
	tests := []struct {
		name     string
		baseline int           // healthy streams before the judged one
		gap      time.Duration // of the judged stream (healthy: 10ms)
		err      error
		want     bool
	}{
		{"collapse to a fifth", 8, 50 * time.Millisecond, nil, true},
		{"slower but within ratio", 8, 15 * time.Millisecond, nil, false},
		{"faster", 8, 5 * time.Millisecond, nil, false},
		{"baseline too short", 7, 50 * time.Millisecond, nil, false},
		{"failed stream not judged", 8, 50 * time.Millisecond, errors.New("x"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDetector(DetectorConfig{})
			for i := range tt.baseline {
				if ds := d.Observe(nil, stream(t, "a", "m", epoch.Add(time.Duration(i)*time.Second), 0, 100*time.Millisecond, 10*time.Millisecond, 64)); len(ds) != 0 {
					t.Fatalf("healthy stream %d: Observe = %+v, want none", i, ds)
				}
			}
			// Another model on the same target has its own baseline.
			d.Observe(nil, stream(t, "a", "other", epoch, 0, 100*time.Millisecond, time.Second, 64))
			tm := stream(t, "a", "m", epoch.Add(time.Minute), 0, 100*time.Millisecond, tt.gap, 64)
			tm.Err = tt.err
			ds := d.Observe(nil, tm)
			got := len(ds) == 1 && ds[0].Kind == KindTPSCollapse
			if got != tt.want {
				t.Fatalf("Observe(%s) = %+v, want collapse %v", tt.name, ds, tt.want)
			}
			if got && (ds[0].Baseline != 100 || ds[0].Observed != tm.TPS()) {
				t.Errorf("detection = %+v, want baseline 100 tokens/s, observed %v", ds[0], tm.TPS())
			}
		})
	}
}

func TestDetectorBaselineBounded(t *testing.T) {
	d := NewDetector(DetectorConfig{BaselineSize: 4, BaselineMin: 4})
	// Four slow streams, then the rate recovers: once the ring holds only
	// fast streams, a slow one stands out.
	for i := range 4 {
		d.Observe(nil, stream(t, "a", "m", epoch.Add(time.Duration(i)*time.Second), 0, 0, 40*time.Millisecond, 16))
	}
	for i := range 4 {
		d.Observe(nil, stream(t, "a", "m", epoch.Add(time.Duration(i)*time.Second), 0, 0, 10*time.Millisecond, 16))
	}
	if got := len(d.baselines[seriesKey{"a", "m"}].tps); got != 4 {
		t.Errorf("baseline length = %d, want 4", got)
	}
	ds := d.Observe(nil, stream(t, "a", "m", epoch, 0, 0, 40*time.Millisecond, 16))
	if len(ds) != 1 || ds[0].Kind != KindTPSCollapse {
		t.Errorf("Observe(slow after recovery) = %+v, want one %s", ds, KindTPSCollapse)
	}
}

func TestDetectorNil(t *testing.T) {
	var d *Detector
	if ds := d.Observe(nil, stream(t, "a", "m", epoch, 0, 0, 0, 8)); ds != nil {
		t.Errorf("nil Detector: Observe = %v, want nil", ds)
	}
	if ds := NewDetector(DetectorConfig{}).Observe(nil, nil); ds != nil {
		t.Errorf("Observe(nil Timing) = %v, want nil", ds)
	}
}

func TestDetectorNotEventStreamAttempt(t *testing.T) {
	tm := stream(t, "b", "m", epoch, 0, 300*time.Millisecond, 20*time.Millisecond, 10)
	failedAt := epoch.Add(100 * time.Millisecond)
	tm.Attempts = []tokenpace.Attempt{
		{Target: "a", Kind: tokenpace.AttemptFirst, Start: epoch, End: failedAt, Outcome: tokenpace.OutcomeFailed,
			Err: &tokenpace.StreamError{Kind: tokenpace.KindContentType, Target: "a", Detail: "text/html"}},
		{Target: "b", Kind: tokenpace.AttemptFallback, Start: failedAt, End: tm.End, Outcome: tokenpace.OutcomeWon},
	}
	ds := NewDetector(DetectorConfig{}).Observe(nil, tm)
	if len(ds) != 1 || ds[0].Kind != KindBufferingProxy || ds[0].Target != "a" || !ds[0].At.Equal(failedAt) ||
		!strings.Contains(ds[0].Message, "text/html") {
		t.Errorf("Observe(fallback after text/html) = %+v, want one buffering_proxy for a at %v naming text/html", ds, failedAt)
	}
}

// TestDetectorPromptCut: a prompt whose text has far more bytes than the
// server counted tokens (Ollama cut a 9,009-token prompt to 2,051, live)
// is flagged; a prompt counted whole, a short one, one with cached tokens
// or parts other than text, or one without the server's usage is not.
func TestDetectorPromptCut(t *testing.T) {
	d := NewDetector(DetectorConfig{})
	usage := func(bytes, prompt, cached int, reported bool) *tokenpace.Timing {
		tm := stream(t, "a", "m", epoch, 0, 100*time.Millisecond, 20*time.Millisecond, 8)
		tm.PromptBytes, tm.PromptTokens, tm.CachedTokens, tm.UsageReported = bytes, prompt, cached, reported
		return tm
	}
	for _, tc := range []struct {
		name string
		tm   *tokenpace.Timing
		want bool
	}{
		{"cut from 9,009 tokens to 2,051 (live Ollama)", usage(32_000, 2051, 0, true), true},
		{"English text counted whole", usage(32_000, 7800, 0, true), false},
		{"Chinese text counted whole", usage(32_000, 11_000, 0, true), false},
		{"short prompt", usage(3000, 100, 0, true), false},
		{"cached tokens", usage(32_000, 2051, 1000, true), false},
		{"no usage", usage(32_000, 0, 0, false), false},
		{"an image among the parts", usage(0, 900, 0, true), false},
	} {
		got := d.Observe(nil, tc.tm)
		found := len(got) > 0 && got[0].Kind == KindPromptCut
		if found != tc.want {
			t.Errorf("%s: detections %+v, want prompt_cut %v", tc.name, got, tc.want)
		}
		if found && (!strings.Contains(got[0].Message, "2051 prompt tokens for 32000 bytes") || got[0].Hint != PromptCutHint) {
			t.Errorf("%s: Message %q, Hint %q", tc.name, got[0].Message, got[0].Hint)
		}
	}
}

// TestDetectorPairsBounded: a Recorder with its detector (the default)
// keeps no more than maxSeries baselines, as it keeps series, however many
// models its requests name; the detector kept one for every pair it ever
// saw, so a Recorder's memory grew with them.
func TestDetectorPairsBounded(t *testing.T) {
	r := NewRecorder()
	for i := range maxSeries + 100 {
		r.Record(context.Background(), stream(t, "t", fmt.Sprint("model-", i), epoch, 0, time.Millisecond, 10*time.Millisecond, 16))
	}
	if got := len(r.det.baselines); got != maxSeries {
		t.Errorf("detector baselines = %d, want %d", got, maxSeries)
	}
	if got := r.Snapshot().Requests; got != maxSeries+100 {
		t.Errorf("Snapshot().Requests = %d, want %d", got, maxSeries+100)
	}
}

// TestDetectorPairSlotReused: past maxSeries pairs, a new pair takes the
// slot of the pair observed least recently, so a long-running process
// judges the models it uses now, not the first 256 it saw; a pair in use
// keeps its baseline. The first 256 pairs kept their slots for good, and
// a model deployed after them was never judged for a collapse.
func TestDetectorPairSlotReused(t *testing.T) {
	d := NewDetector(DetectorConfig{})
	healthy := func(model string) *tokenpace.Timing {
		return stream(t, "t", model, epoch, 0, 100*time.Millisecond, 10*time.Millisecond, 64)
	}
	collapsed := func(model string) *tokenpace.Timing {
		return stream(t, "t", model, epoch, 0, 100*time.Millisecond, 50*time.Millisecond, 64)
	}
	for range 8 {
		d.Observe(nil, healthy("kept"))
	}
	for i := range maxSeries + 50 {
		d.Observe(nil, healthy(fmt.Sprint("retired-", i)))
		if i%100 == 0 {
			d.Observe(nil, healthy("kept")) // in use: never the stalest
		}
	}
	for range 8 {
		d.Observe(nil, healthy("new"))
	}
	for _, model := range []string{"new", "kept"} {
		ds := d.Observe(nil, collapsed(model))
		if len(ds) != 1 || ds[0].Kind != KindTPSCollapse {
			t.Errorf("model %q collapsed to a fifth after %d other pairs: detections %+v, want tps_collapse", model, maxSeries+50, ds)
		}
	}
	if got := len(d.baselines); got != maxSeries {
		t.Errorf("baselines = %d, want %d", got, maxSeries)
	}
}
