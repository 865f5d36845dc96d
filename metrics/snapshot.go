package metrics

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Snapshot is the state of a Recorder at one moment: totals over every target
// and model, and the same figures for each in Targets. Throughputs are per
// second of Duration, the span from the earliest request's start to the
// latest one's end; the Window figures cover only the last Window of time.
type Snapshot struct {
	// Target and Model name the series; both are empty for totals over
	// several series.
	Target string `json:"target,omitempty"`
	Model  string `json:"model,omitempty"`

	// Requests counts finished requests: Completed ended cleanly, Failed
	// with an error. Good ended cleanly and met the SLO (SLO.Good): the
	// caller's view, so a request whose fallback, hedge or continuation
	// recovered from a budget breach in time is good, and its breach is
	// counted in Breaches.
	Requests  int64 `json:"requests"`
	Completed int64 `json:"completed"`
	Failed    int64 `json:"failed"`
	Good      int64 `json:"good"`

	// Token totals over every request; CachedTokens is the part of
	// InputTokens the server's prompt cache served.
	InputTokens  int64 `json:"input_tokens"`
	CachedTokens int64 `json:"cached_tokens"`
	OutputTokens int64 `json:"output_tokens"`

	// Duration is the span from the earliest start to the latest end.
	Duration time.Duration `json:"-"`
	// RequestThroughput is completed requests per second of Duration.
	RequestThroughput float64 `json:"request_throughput"`
	// OutputThroughput is output tokens per second of Duration, summed
	// over concurrent streams.
	OutputThroughput float64 `json:"output_throughput"`
	// Goodput is good requests per second; TokenGoodput their output
	// tokens per second.
	Goodput      float64 `json:"goodput"`
	TokenGoodput float64 `json:"token_goodput"`

	// Window is the length of the sliding window; WindowRequestThroughput
	// and WindowOutputThroughput are completed requests and output tokens
	// (by chunk arrival) per second within it, counting requests that have
	// ended. The window is cut into 20 slots and ends at the snapshot's
	// time: it covers the current slot so far and the 19 before it, or
	// only the time since the first request started when that is shorter
	// (a run shorter than the window).
	Window                  time.Duration `json:"-"`
	WindowRequestThroughput float64       `json:"window_request_throughput"`
	WindowOutputThroughput  float64       `json:"window_output_throughput"`

	// TTFT and ITL cover every request that produced a token; TPOT and
	// E2E cover completed requests. ITL holds every gap between the
	// chunks a Timing stamps (its first 65,536); past them, only the
	// longest gap, so that the maximum stays exact.
	TTFT Dist `json:"ttft_ms"`
	TPOT Dist `json:"tpot_ms"`
	ITL  Dist `json:"itl_ms"`
	E2E  Dist `json:"e2e_ms"`

	// Milestones holds, by name, the time from sending each request to the
	// milestone (first_sentence, first_line, user-defined), for requests
	// that reached it; nil when none did.
	Milestones map[string]Dist `json:"milestones_ms,omitempty"`

	// PromptFit is TTFT as a function of uncached prompt tokens, from
	// requests whose usage the server reported; for a Router call, the
	// answering attempt's own TTFT (the server's prefill), not the caller's.
	PromptFit Fit `json:"prompt_fit"`

	// Errors counts failed requests by error type (see the package doc),
	// Breaches budget breaches by phase, one per attempt that breached,
	// those a Router recovered from included (so good requests may have
	// some) and in the series of the attempt's target and model (which
	// may have answered no request), Detections pathologies by Kind. Nil
	// when empty.
	Errors     map[string]int64 `json:"errors,omitempty"`
	Breaches   map[string]int64 `json:"breaches,omitempty"`
	Detections map[string]int64 `json:"detections,omitempty"`

	// Targets holds the figures of each target and model, ordered by
	// target then model; empty within a per-target snapshot.
	Targets []Snapshot `json:"targets,omitempty"`
}

type snapshotJSON Snapshot

// MarshalJSON renders s with durations in seconds (duration_s, window_s)
// and latencies in milliseconds.
func (s Snapshot) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		snapshotJSON
		Duration float64 `json:"duration_s"`
		Window   float64 `json:"window_s"`
	}{snapshotJSON(s), s.Duration.Seconds(), s.Window.Seconds()})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Snapshot) UnmarshalJSON(b []byte) error {
	var j struct {
		snapshotJSON
		Duration float64 `json:"duration_s"`
		Window   float64 `json:"window_s"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Snapshot(j.snapshotJSON)
	s.Duration = seconds(j.Duration)
	s.Window = seconds(j.Window)
	return nil
}

// String renders s as WriteTable does.
func (s Snapshot) String() string {
	var b strings.Builder
	_ = s.WriteTable(&b)
	return b.String()
}

// WriteTable writes s as a human-readable table: the totals, the latency
// percentiles in milliseconds, the error, breach and detection counts, and
// one line per target and model when there are several, with its breaches.
func (s Snapshot) WriteTable(w io.Writer) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "requests %d  completed %d  failed %d  good %d  over %s\n",
		s.Requests, s.Completed, s.Failed, s.Good, s.Duration.Round(time.Millisecond))
	fmt.Fprintf(ew, "throughput %.2f req/s  %.1f tok/s  goodput %.2f req/s  %.1f tok/s\n",
		s.RequestThroughput, s.OutputThroughput, s.Goodput, s.TokenGoodput)
	fmt.Fprintf(ew, "last %s: %.2f req/s  %.1f tok/s\n",
		s.Window, s.WindowRequestThroughput, s.WindowOutputThroughput)
	fmt.Fprintf(ew, "tokens in %d (cached %d)  out %d\n", s.InputTokens, s.CachedTokens, s.OutputTokens)

	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "ms\tcount\tmean\tp50\tp90\tp95\tp99\tp99.9\tmax\t")
	row := func(name string, d Dist) {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t\n", name, d.Count,
			ms(d.Mean), ms(d.P50), ms(d.P90), ms(d.P95), ms(d.P99), ms(d.P999), ms(d.Max))
	}
	row("TTFT", s.TTFT)
	row("TPOT", s.TPOT)
	row("ITL", s.ITL)
	row("E2E", s.E2E)
	for _, name := range slices.Sorted(maps.Keys(s.Milestones)) {
		row(name, s.Milestones[name])
	}
	_ = tw.Flush()

	if f := s.PromptFit; f.Meaningful() {
		fmt.Fprintf(ew, "TTFT ≈ %.1f ms + %.1f ms per 1k uncached prompt tokens (n=%d, %d..%d tokens, R²=%.2f); 100k tokens: %.0f ms\n",
			ms(f.Intercept), ms(f.PerKToken), f.N, f.MinTokens, f.MaxTokens, f.R2, ms(f.Predict(100_000)))
	}
	writeCounts(ew, "errors", s.Errors)
	writeCounts(ew, "breaches", s.Breaches)
	writeCounts(ew, "detections", s.Detections)

	if len(s.Targets) > 1 {
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "target\tmodel\treq\tfailed\tgood\tbreaches\ttok/s\tTTFT p50\tTTFT p99\tTPOT p50\tTPOT p99")
		for _, t := range s.Targets {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\n",
				orDash(t.Target), orDash(t.Model), t.Requests, t.Failed, t.Good, sumCounts(t.Breaches),
				t.OutputThroughput, ms(t.TTFT.P50), ms(t.TTFT.P99), ms(t.TPOT.P50), ms(t.TPOT.P99))
		}
		_ = tw.Flush()
	}
	return ew.err
}

func writeCounts(w io.Writer, name string, m map[string]int64) {
	if len(m) == 0 {
		return
	}
	fmt.Fprintf(w, "%s:", name)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(w, " %s=%d", k, m[k])
	}
	fmt.Fprintln(w)
}

func sumCounts(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// errWriter keeps the first write error and drops later writes.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
