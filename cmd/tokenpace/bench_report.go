package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate"
)

// benchReport is what bench prints.
type benchReport struct {
	f    *benchFlags
	what string
	mdl  string
	snap metrics.Snapshot
	res  *loadResult
	// load describes a trace's or sessions' load; "" for the plain ones.
	load string
	// search is the rate search's, nil for a single run.
	search *rateSearch
	// pred is the embedded simulator's offline prediction for a closed
	// loop's load; nil otherwise.
	pred *simulate.Prediction
	// promptSeed is the seed the prompts were drawn with.
	promptSeed uint64
}

func newBenchReport(f *benchFlags, t *benchTarget, g *loadGen, res *loadResult) *benchReport {
	r := &benchReport{f: f, what: t.what, mdl: t.model, snap: res.snap, res: res, load: g.load, promptSeed: g.promptSeed}
	if t.deployment != nil && f.rate == 0 && g.load == "" {
		p, err := simulate.Predict(*t.deployment, simulate.Scenario{
			PromptTokens: f.prompt, OutputTokens: f.maxTokens, Concurrency: min(f.concurrency, f.requests),
		})
		if err == nil {
			r.pred = &p
		}
	}
	return r
}

// predictionJSON is the prediction in the JSON report.
type predictionJSON struct {
	TTFTMs float64 `json:"ttft_ms"`
	TPOTMs float64 `json:"tpot_ms"`
	E2EMs  float64 `json:"e2e_ms"`
}

// benchRun describes the run in the JSON report; its field names are a
// contract other tools parse.
type benchRun struct {
	Endpoint    string  `json:"endpoint"`
	Model       string  `json:"model"`
	Planned     int     `json:"planned_requests"`
	Concurrency int     `json:"concurrency"`
	Rate        float64 `json:"rate"`
	// PromptTokens and MaxTokens are those of every request; 0 for a
	// replayed trace, whose requests have their own. With sessions,
	// PromptTokens is what each turn adds.
	PromptTokens int `json:"prompt_tokens"`
	MaxTokens    int `json:"max_tokens"`
	// PromptSeed is the seed the prompts were drawn with: --seed with it
	// sends them again.
	PromptSeed uint64  `json:"prompt_seed"`
	Warmup     int     `json:"warmup"`
	SLOTTFTMs  float64 `json:"slo_ttft_ms"`
	SLOTPOTMs  float64 `json:"slo_tpot_ms"`
	Late       int     `json:"late_requests"`
	MaxLateMs  float64 `json:"max_lateness_ms"`
	// Lateness is the client's own delay in sending requests on
	// schedule (an open loop only): p50, p99 and max in ms. The latency
	// figures do not include it.
	Lateness    map[string]float64 `json:"client_lateness_ms,omitempty"`
	Warnings    []string           `json:"warnings"`
	Interrupted bool               `json:"interrupted"`
	Abandoned   int                `json:"abandoned"`
	// Load describes a replayed trace or sessions; absent otherwise.
	Load string `json:"load,omitempty"`
	// Turns holds sessions' TTFT of first and of later turns.
	Turns *turnsJSON `json:"turns,omitempty"`
	// RateSearch is --find-max-rate's result and the curve it walked.
	RateSearch *rateSearch `json:"rate_search,omitempty"`
}

// turnsJSON is the TTFT of sessions' first turns and of their later
// turns, which carry the conversation so far (the prefix a cache serves).
type turnsJSON struct {
	FirstTTFTMs map[string]float64 `json:"first_turn_ttft_ms"`
	LaterTTFTMs map[string]float64 `json:"later_turns_ttft_ms"`
}

// writeJSON writes one JSON object: the Recorder's snapshot (requests,
// completed, failed, duration_s, request_throughput, output_throughput,
// goodput, ttft_ms, tpot_ms, itl_ms, e2e_ms, errors, ...) and the run's
// description (benchRun) side by side.
func (r *benchReport) writeJSON(w io.Writer) error {
	obj, err := r.jsonObject()
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(obj)
}

// jsonObject returns the JSON report as one object.
func (r *benchReport) jsonObject() (map[string]any, error) {
	snap := r.snap
	snap.Targets = nil // one series: the totals say it all
	obj := map[string]any{}
	prompt, maxTokens, conc := r.f.prompt, r.f.maxTokens, r.f.concurrency
	switch {
	case r.f.traceFile != "":
		prompt, maxTokens = 0, 0 // each request's own, from the trace
	case r.f.sess.on():
		conc = r.f.sess.sessions // one turn in flight a conversation
	}
	for _, v := range []any{snap, benchRun{
		Endpoint: r.what, Model: r.mdl, Planned: r.f.requests, Concurrency: conc, Rate: r.f.rate,
		PromptTokens: prompt, MaxTokens: maxTokens, PromptSeed: r.promptSeed, Warmup: r.f.warmup,
		SLOTTFTMs: msf(r.f.sloTTFT), SLOTPOTMs: msf(r.f.sloTPOT),
		Late: r.res.late, MaxLateMs: msf(r.res.maxLate), Lateness: r.latenessMs(), Warnings: r.warnings(),
		Interrupted: r.res.interrupted, Abandoned: r.res.abandoned, Load: r.load, Turns: r.turns(), RateSearch: r.search,
	}} {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &obj); err != nil {
			return nil, err
		}
	}
	if p := r.pred; p != nil {
		obj["predicted"] = predictionJSON{TTFTMs: msf(p.TTFT), TPOTMs: msf(p.TPOT), E2EMs: msf(p.E2E)}
	}
	if _, ok := obj["errors"]; !ok {
		obj["errors"] = map[string]int64{}
	}
	return obj, nil
}

// writeText writes the human-readable report.
func (r *benchReport) writeText(w io.Writer) error {
	ew := &firstErr{w: w}
	f := r.f
	fmt.Fprintf(ew, "endpoint  %s\nmodel     %s\n", r.what, r.mdl)
	load := "closed loop, " + count(f.concurrency, "client")
	if f.rate > 0 {
		load = fmt.Sprintf("Poisson arrivals at %g/s", f.rate)
		if f.concurrency > 0 {
			load += fmt.Sprintf(", at most %d in flight", f.concurrency)
		}
	}
	if r.load != "" {
		fmt.Fprintf(ew, "load      %s", r.load)
	} else {
		fmt.Fprintf(ew, "load      %s (%s), %s, max_tokens %d", count(f.requests, "request"), load, count(f.prompt, "prompt token"), f.maxTokens)
	}
	if f.warmup > 0 {
		fmt.Fprintf(ew, ", after %s", count(f.warmup, "warm-up request"))
	}
	fmt.Fprintln(ew)
	if f.sloTTFT > 0 || f.sloTPOT > 0 {
		fmt.Fprintf(ew, "SLO       %s (goodput counts the requests that met it)\n", sloText(f.sloTTFT, f.sloTPOT))
	}
	if r.res.interrupted {
		fmt.Fprintf(ew, "interrupted: %d of %d requests measured, %d in flight abandoned\n",
			r.snap.Requests, f.requests, r.res.abandoned)
	}
	fmt.Fprintln(ew)
	if r.search != nil {
		r.search.writeText(ew)
	}
	r.writeTable(ew)
	if t := r.turns(); t != nil {
		fmt.Fprintf(ew, "turns       TTFT %s on first turns, %s on later turns (which carry the conversation so far)\n",
			turnFigures(t.FirstTTFTMs), turnFigures(t.LaterTTFTMs))
	}
	if f.rate > 0 || r.res.lateness != nil {
		l := r.latenessMs()
		fmt.Fprintf(ew, "client: %d of %d requests went out more than %v late (p50 %.1f, p99 %.1f, max %.1f ms); the figures above count from each request's send\n",
			r.res.late, len(r.res.lateness), lateAfter, l["p50"], l["p99"], l["max"])
	}
	return ew.err
}

// turns returns the TTFT of sessions' first and later turns; nil
// without sessions.
func (r *benchReport) turns() *turnsJSON {
	if !r.f.sess.on() {
		return nil
	}
	return &turnsJSON{FirstTTFTMs: quantilesMs(r.res.turnTTFT[0]), LaterTTFTMs: quantilesMs(r.res.turnTTFT[1])}
}

// turnFigures is the p50 and p99 of turns' TTFT (from quantilesMs), or
// "none measured" when no such turn completed: a run interrupted before
// any later turn, or one of --turns 1.
func turnFigures(m map[string]float64) string {
	if m["count"] == 0 {
		return "none measured"
	}
	return fmt.Sprintf("p50 %.1f / p99 %.1f ms", m["p50"], m["p99"])
}

// quantilesMs returns the count, p50, p90, p99 and max of d in ms.
func quantilesMs(d []time.Duration) map[string]float64 {
	d = slices.Clone(d)
	slices.Sort(d)
	m := map[string]float64{"count": float64(len(d))}
	if len(d) == 0 {
		return m
	}
	for _, q := range []struct {
		name string
		p    float64
	}{{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}} {
		m[q.name] = msf(d[min(int(q.p*float64(len(d))), len(d)-1)])
	}
	m["max"] = msf(d[len(d)-1])
	return m
}

// latenessMs returns the p50, p99 and max of the client's delays in
// sending requests on schedule, in ms; nil for a closed loop.
func (r *benchReport) latenessMs() map[string]float64 {
	d := slices.Clone(r.res.lateness)
	if len(d) == 0 {
		return nil
	}
	slices.Sort(d)
	q := func(p float64) float64 { return msf(d[min(int(p*float64(len(d))), len(d)-1)]) }
	return map[string]float64{"p50": q(0.50), "p99": q(0.99), "max": msf(d[len(d)-1])}
}

// Lateness past which the client's own delays are said out loud: more
// than lateShare of the requests later than lateLoud.
const (
	lateShare = 0.01
	lateLoud  = 10 * time.Millisecond
)

// warnings says what in the run the figures do not show: token counts
// that are chunk counts, and the client, not the server, holding requests
// back.
func (r *benchReport) warnings() []string {
	w := []string{}
	if n := r.res.uncounted; n > 0 {
		w = append(w, fmt.Sprintf("the server reported no token usage for %d of %d completed requests: their output tokens are the chunks counted, fewer than the tokens when a chunk carries several (KoboldCpp, and proxies that buffer, send them so), and tokens/s and TPOT are figured from that count", n, r.snap.Completed))
	}
	return append(w, r.lateWarnings()...)
}

// lateWarnings says when the client, not the server, held requests back,
// naming what set the schedule: --rate, or a replayed trace.
func (r *benchReport) lateWarnings() []string {
	loud := 0
	for _, d := range r.res.lateness {
		if d > lateLoud {
			loud++
		}
	}
	if loud == 0 || float64(loud) <= lateShare*float64(len(r.res.lateness)) {
		return []string{}
	}
	asked, slower := "--rate", "lower --rate"
	if r.f.traceFile != "" {
		asked, slower = "the trace", "lower --speedup"
	}
	why := fmt.Sprintf("it could not send them on time (a busy CPU, or a machine too slow for %s)", asked)
	if r.res.capped*2 > r.res.late {
		why = fmt.Sprintf("its cap of %d requests in flight (--concurrency) held them back: drop it for an open loop, or %s", r.f.concurrency, slower)
	}
	return []string{fmt.Sprintf("the client delayed %d of %d requests by more than %v (max %v): %s. The latency figures count from each send and do not include this wait, but the server saw less load than %s asked for",
		loud, len(r.res.lateness), lateLoud, r.res.maxLate.Round(time.Millisecond), why, asked)}
}

// writeTable writes the measured figures: counts, throughput, goodput,
// tokens, the latency percentiles and the errors by kind.
func (r *benchReport) writeTable(w io.Writer) {
	s := r.snap
	fmt.Fprintf(w, "requests    %d completed, %d failed, in %.2f s\n", s.Completed, s.Failed, s.Duration.Seconds())
	fmt.Fprintf(w, "throughput  %.2f req/s, %.1f output tokens/s\n", s.RequestThroughput, s.OutputThroughput)
	if r.f.sloTTFT > 0 || r.f.sloTPOT > 0 {
		fmt.Fprintf(w, "goodput     %.2f req/s, %.1f tokens/s (%d of %d met the SLO)\n", s.Goodput, s.TokenGoodput, s.Good, s.Requests)
	} else {
		fmt.Fprintf(w, "goodput     %.2f req/s (no SLO set: every completed request counts)\n", s.Goodput)
	}
	fmt.Fprintf(w, "tokens      %d in (%d cached), %d out\n\n", s.InputTokens, s.CachedTokens, s.OutputTokens)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "ms\tcount\tmean\tp50\tp90\tp95\tp99\tmax\t")
	for _, row := range []struct {
		name string
		d    metrics.Dist
	}{{"TTFT", s.TTFT}, {"TPOT", s.TPOT}, {"ITL", s.ITL}, {"E2E", s.E2E}} {
		fmt.Fprintf(tw, "%s\t%d\t%s\t\n", row.name, row.d.Count, strings.Join(distFigures(row.d), "\t"))
	}
	_ = tw.Flush()
	writeCounts(w, "errors     ", s.Errors)
	writeCounts(w, "detected   ", s.Detections)
	if p := r.pred; p != nil {
		fmt.Fprintf(w, "predicted   TTFT %.1f, TPOT %.1f, E2E %.1f ms (the simulator's offline run of %s arriving together)\n",
			msf(p.TTFT), msf(p.TPOT), msf(p.E2E), count(p.Scenario.Concurrency, "request"))
	}
}

// distFigures returns the mean, p50, p90, p95, p99 and max of d in ms
// with one decimal, or a dash for each when d holds no value: a figure no
// request had (TPOT of one-token answers, E2E when every request failed)
// is not 0 ms.
func distFigures(d metrics.Dist) []string {
	v := []time.Duration{d.Mean, d.P50, d.P90, d.P95, d.P99, d.Max}
	out := make([]string, len(v))
	for i := range v {
		out[i] = "–"
		if d.Count > 0 {
			out[i] = ms1(v[i])
		}
	}
	return out
}

// writeCounts writes counts by kind on one line, if there are any.
func writeCounts(w io.Writer, name string, m map[string]int64) {
	if len(m) == 0 {
		return
	}
	fmt.Fprint(w, name)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(w, " %s: %d", k, m[k])
	}
	fmt.Fprintln(w)
}

func sloText(ttft, tpot time.Duration) string {
	s := ""
	if ttft > 0 {
		s = "TTFT ≤ " + ttft.String()
	}
	if tpot > 0 {
		if s != "" {
			s += ", "
		}
		s += "TPOT ≤ " + tpot.String()
	}
	return s
}

// firstErr keeps the first write error and drops later writes.
type firstErr struct {
	w   io.Writer
	err error
}

func (e *firstErr) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
