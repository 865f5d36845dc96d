package metrics

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tokenpace/tokenpace"
)

// SLO holds service-level objectives a request must meet, besides ending
// without error, to count toward goodput (see Good). A zero field sets no
// objective. The names are those of every latency objective in tokenpace:
// TTFT and Gap as in tokenpace.Budget, TPOT and E2E as Timing measures
// them; plan.SLO (package simulate/plan) bounds their percentiles
// (TTFTP99, TPOTP99, E2EP99).
type SLO struct {
	// TTFT is the longest acceptable time to first token.
	TTFT time.Duration
	// TPOT is the longest acceptable time per output token.
	TPOT time.Duration
	// Gap is the longest acceptable gap between two chunks.
	Gap time.Duration
	// E2E is the longest acceptable time to the end of the stream.
	E2E time.Duration
}

// Met reports whether t met every objective of s. A non-streaming call
// (New, NewCompletion, NewResponse, of a Client or a Router alike) shows
// no token before its whole answer: its Timing has no TTFT, TPOT or gap,
// so only the E2E objective applies to it.
func (s SLO) Met(t *tokenpace.Timing) bool {
	over := func(limit, v time.Duration) bool { return limit > 0 && v > limit }
	return !over(s.TTFT, t.TTFT()) && !over(s.TPOT, t.TPOT()) &&
		!over(s.Gap, t.MaxGap()) && !over(s.E2E, t.E2E())
}

// Good reports whether t counts toward goodput under s: it ended without
// error and met s. This is the caller's view. A Router call's figures are
// the caller's (TTFT from its first request, across fallbacks and hedges),
// so a budget breach that a fallback, hedge or continuation recovered from
// makes the call bad only when the delay it cost shows in those figures
// beyond s; the breach itself is counted apart (Snapshot.Breaches,
// tokenpace.client.budget.breaches). Timing.OK, which no recovered breach
// passes, is stricter.
func (s SLO) Good(t *tokenpace.Timing) bool { return t.Err == nil && s.Met(t) }

// A Recorder keeps latency and throughput statistics of finished requests in
// process, per target and model, with no backend: TTFT, ITL, TPOT (of
// streaming calls) and E2E percentiles from HDR histograms (bounded
// memory, see RelativeError),
// request and output-token throughput overall and over a sliding window,
// goodput, error kinds, budget breaches, detections and a fit of TTFT
// against prompt length. It is what `tokenpace bench` prints. A request
// counts in the series of the target and model that answered it, a budget
// breach in that of the attempt that breached: a Router call that fell
// back from a breaching route adds its breach to that route's series.
//
// A Recorder is safe for concurrent use. Its memory grows with the number
// of distinct target and model pairs (about 0.75 MB each, for four
// histograms of three significant digits over 1µs..1h), not with the
// number of requests; past 256 pairs, further ones are pooled under the
// target and model "_other". Use NewRecorder; the zero Recorder is not usable.
type Recorder struct {
	cfg config
	det *Detector

	mu     sync.RWMutex
	series map[seriesKey]*series
}

type seriesKey struct{ target, model string }

// series holds the statistics of one target and model.
type series struct {
	mu sync.Mutex
	acc
}

// acc is what a series accumulates, and what a snapshot merges.
type acc struct {
	requests, completed, failed, good int64
	inputTokens, cachedTokens         int64
	outputTokens, goodTokens          int64
	first, last                       time.Time
	ttft, tpot, itl, e2e              *dist
	win                               window
	fit                               regression
	errors, breaches, detections      map[string]int64
	milestones                        map[string]*dist
}

// maxMilestones bounds the milestone names a series keeps distributions
// for; later names are not recorded.
const maxMilestones = 16

// NewRecorder returns an empty Recorder. It heeds WithSLO, WithWindow and
// the detection options (WithDetectorConfig, WithDetector,
// WithoutDetection, WithDetectionHandler, WithLogger).
func NewRecorder(opts ...Option) *Recorder {
	cfg := newConfig(opts)
	return newRecorder(cfg, cfg.detectorFor())
}

func newRecorder(cfg config, det *Detector) *Recorder {
	return &Recorder{cfg: cfg, det: det, series: make(map[seriesKey]*series)}
}

// Hooks returns the hooks that feed r: add them to the client's hooks.
func (r *Recorder) Hooks() tokenpace.Hooks {
	return tokenpace.Hooks{Done: r.Record}
}

// Record adds the finished request t. It runs the Recorder's detector, if
// any, on t. A nil t is ignored.
func (r *Recorder) Record(ctx context.Context, t *tokenpace.Timing) {
	if t == nil {
		return
	}
	var buf [2]Detection
	ds := r.det.Observe(buf[:0], t)
	r.record(t, ds)
	r.cfg.notify(ctx, ds)
}

// record adds t and the detections found in it. Each of t's breaches
// goes to the series of the attempt that breached (see breachModel),
// which for a Router call that fell back is not the call's.
func (r *Recorder) record(t *tokenpace.Timing, ds []Detection) {
	s := r.seriesFor(seriesKey{t.Target, t.Model})
	s.mu.Lock()
	s.add(t, r.cfg.slo)
	for _, d := range ds {
		s.detections[string(d.Kind)]++
	}
	s.mu.Unlock()
	for _, b := range t.Breaches {
		s := r.seriesFor(seriesKey{b.Target, breachModel(t, b)})
		s.mu.Lock()
		s.breaches[string(b.Phase)]++
		s.mu.Unlock()
	}
}

func (r *Recorder) seriesFor(k seriesKey) *series {
	r.mu.RLock()
	s := r.series[k]
	r.mu.RUnlock()
	if s != nil {
		return s
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s = r.series[k]; s != nil {
		return s
	}
	if len(r.series) >= maxSeries {
		k = otherSeries
		if s = r.series[k]; s != nil {
			return s
		}
	}
	s = &series{acc: newAcc(r.cfg.window)}
	r.series[k] = s
	return s
}

// maxSeries bounds the target and model pairs a Recorder keeps apart;
// requests of further pairs are pooled under otherSeries.
const maxSeries = 256

var otherSeries = seriesKey{"_other", "_other"}

func newAcc(window time.Duration) acc {
	return acc{
		ttft: newDist(), tpot: newDist(), itl: newDist(), e2e: newDist(),
		win:    newWindow(window),
		errors: map[string]int64{}, breaches: map[string]int64{}, detections: map[string]int64{},
		milestones: map[string]*dist{},
	}
}

// milestone returns the distribution of name, or false past maxMilestones.
func (a *acc) milestone(name string) (*dist, bool) {
	d, ok := a.milestones[name]
	if !ok {
		if len(a.milestones) >= maxMilestones {
			return nil, false
		}
		d = newDist()
		a.milestones[name] = d
	}
	return d, true
}

func (a *acc) add(t *tokenpace.Timing, slo SLO) {
	a.requests++
	if !t.Start.IsZero() && (a.first.IsZero() || t.Start.Before(a.first)) {
		a.first = t.Start
	}
	if t.End.After(a.last) {
		a.last = t.End
	}
	a.inputTokens += int64(t.PromptTokens)
	a.cachedTokens += int64(t.CachedTokens)
	a.outputTokens += int64(t.OutputTokens)
	if t.Err != nil {
		a.failed++
		a.errors[ErrorType(t.Err)]++
	} else {
		a.completed++
	}
	if slo.Good(t) {
		a.good++
		a.goodTokens += int64(t.OutputTokens)
	}

	// A non-streaming call shows no token before its whole answer: its
	// Timing has no chunks, whether a Client or a Router made it, and
	// its tokens count at its end.
	streamed := t.Stream && len(t.Chunks) > 0
	if streamed {
		ttft := t.TTFT()
		a.ttft.record(ttft)
		var longest time.Duration
		for i := 1; i < len(t.Chunks); i++ {
			gap := t.Chunks[i].Sub(t.Chunks[i-1])
			a.itl.record(gap)
			longest = max(longest, gap)
		}
		if t.OutputChunks > len(t.Chunks) {
			if later := t.MaxGap(); later > longest {
				// The longest gap past the stamped chunks: the others
				// there are not known one by one, but the maximum is
				// kept exact.
				a.itl.record(later)
			}
		}
		if t.UsageReported && t.PromptTokens > 0 {
			a.fit.add(float64(t.PromptTokens-t.CachedTokens), serverTTFT(t).Seconds())
		}
		// Past the stamped chunks (a Timing stamps the first 65,536), their
		// tokens count at the last chunk's arrival.
		per := float64(t.OutputTokens) / float64(max(t.OutputChunks, len(t.Chunks)))
		for _, at := range t.Chunks {
			a.win.add(at, 0, per)
		}
		if rest := t.OutputChunks - len(t.Chunks); rest > 0 {
			a.win.add(t.LastChunk, 0, per*float64(rest))
		}
	}
	for name := range t.Milestones {
		if v, ok := t.Milestone(name); ok {
			if d, ok := a.milestone(name); ok {
				d.record(v)
			}
		}
	}
	if t.Err == nil {
		if hasTPOT(t) {
			a.tpot.record(t.TPOT())
		}
		a.e2e.record(t.E2E())
		tokens := 0.0
		if !streamed {
			tokens = float64(t.OutputTokens) // a non-streaming call delivers at its end
		}
		a.win.add(t.End, 1, tokens)
	}
}

// hasTPOT reports whether t has a time per output token to record: a
// streamed answer of two output tokens or more, not counting reasoning the
// stream never showed (OpenAI's reasoning models: 40 hidden reasoning
// tokens before a single visible one make no figure, and Timing.TPOT is
// then 0).
func hasTPOT(t *tokenpace.Timing) bool {
	return t.Stream && len(t.Chunks) > 0 && t.OutputTokens >= 2 && (t.ReasoningTokens == 0 || t.TPOT() > 0)
}

// serverTTFT is the TTFT of the server that answered, which the prompt fit
// models: for a Router call the answering attempt's own (the caller's TTFT
// also holds the time lost on other routes), else the request's.
func serverTTFT(t *tokenpace.Timing) time.Duration {
	for _, a := range t.Attempts {
		if a.Tokens > 0 && a.Kind != tokenpace.AttemptContinuation {
			if d := a.TTFT(); d > 0 {
				return d
			}
		}
	}
	return t.TTFT()
}

// merge adds o into a, for a snapshot's totals.
func (a *acc) merge(o *acc) {
	a.requests += o.requests
	a.completed += o.completed
	a.failed += o.failed
	a.good += o.good
	a.inputTokens += o.inputTokens
	a.cachedTokens += o.cachedTokens
	a.outputTokens += o.outputTokens
	a.goodTokens += o.goodTokens
	if !o.first.IsZero() && (a.first.IsZero() || o.first.Before(a.first)) {
		a.first = o.first
	}
	if o.last.After(a.last) {
		a.last = o.last
	}
	a.ttft.merge(o.ttft)
	a.tpot.merge(o.tpot)
	a.itl.merge(o.itl)
	a.e2e.merge(o.e2e)
	for _, s := range o.win.slots {
		if s.idx != 0 {
			a.win.addSlot(s)
		}
	}
	a.fit.merge(o.fit)
	for name, od := range o.milestones {
		if d, ok := a.milestone(name); ok {
			d.merge(od)
		}
	}
	mergeCounts(a.errors, o.errors)
	mergeCounts(a.breaches, o.breaches)
	mergeCounts(a.detections, o.detections)
}

func mergeCounts(dst, src map[string]int64) {
	for k, v := range src {
		dst[k] += v
	}
}

// Snapshot returns the statistics so far, with the sliding window ending
// now.
func (r *Recorder) Snapshot() Snapshot { return r.SnapshotAt(time.Now()) }

// SnapshotAt is like Snapshot with the sliding window ending at now.
func (r *Recorder) SnapshotAt(now time.Time) Snapshot {
	type entry struct {
		key seriesKey
		s   *series
	}
	r.mu.RLock()
	all := make([]entry, 0, len(r.series))
	for k, s := range r.series {
		all = append(all, entry{k, s})
	}
	r.mu.RUnlock()
	slices.SortFunc(all, func(a, b entry) int {
		if c := strings.Compare(a.key.target, b.key.target); c != 0 {
			return c
		}
		return strings.Compare(a.key.model, b.key.model)
	})

	total := newAcc(r.cfg.window)
	var parts []Snapshot
	for _, e := range all {
		e.s.mu.Lock()
		part := e.s.acc.snapshot(now)
		total.merge(&e.s.acc)
		e.s.mu.Unlock()
		part.Target, part.Model = e.key.target, e.key.model
		parts = append(parts, part)
	}
	snap := total.snapshot(now)
	snap.Targets = parts
	if len(parts) == 1 {
		snap.Target, snap.Model = parts[0].Target, parts[0].Model
	}
	return snap
}

// Reset forgets every request recorded so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.series = make(map[seriesKey]*series)
	r.mu.Unlock()
}

func (a *acc) snapshot(now time.Time) Snapshot {
	s := Snapshot{
		Requests: a.requests, Completed: a.completed, Failed: a.failed, Good: a.good,
		InputTokens: a.inputTokens, CachedTokens: a.cachedTokens, OutputTokens: a.outputTokens,
		TTFT: a.ttft.stats(), TPOT: a.tpot.stats(), ITL: a.itl.stats(), E2E: a.e2e.stats(),
		PromptFit:  a.fit.fit(),
		Errors:     copyCounts(a.errors),
		Breaches:   copyCounts(a.breaches),
		Detections: copyCounts(a.detections),
		Window:     a.win.width * windowSlots,
	}
	if len(a.milestones) > 0 {
		s.Milestones = make(map[string]Dist, len(a.milestones))
		for name, d := range a.milestones {
			s.Milestones[name] = d.stats()
		}
	}
	if !a.first.IsZero() && a.last.After(a.first) {
		s.Duration = a.last.Sub(a.first)
		secs := s.Duration.Seconds()
		s.RequestThroughput = float64(a.completed) / secs
		s.OutputThroughput = float64(a.outputTokens) / secs
		s.Goodput = float64(a.good) / secs
		s.TokenGoodput = float64(a.goodTokens) / secs
	}
	s.WindowRequestThroughput, s.WindowOutputThroughput = a.win.rates(now, a.first)
	return s
}

func copyCounts(m map[string]int64) map[string]int64 {
	if len(m) == 0 {
		return nil
	}
	c := make(map[string]int64, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
