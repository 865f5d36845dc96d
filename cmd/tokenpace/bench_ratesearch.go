package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"text/tabwriter"
	"time"

	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate/plan"
)

// searchFlags configure --find-max-rate.
type searchFlags struct {
	on        bool
	steps     int
	requests  int
	duration  time.Duration
	precision float64
	target    float64
}

// register registers the rate search's flags on fs.
func (s *searchFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&s.on, "find-max-rate", false, "search the highest request rate whose goodput meets --slo-ttft/--slo-tpot: bracket from --rate (default 1/s) by doubling or halving, then bisect")
	fs.IntVar(&s.requests, "step-requests", 300, "with --find-max-rate: fewest Poisson requests a step sends (at least 100, for a p99 above a single request)")
	fs.DurationVar(&s.duration, "step-duration", 10*time.Second, "with --find-max-rate: shortest time a step sends for, so that a queue past capacity has time to build")
	fs.Float64Var(&s.precision, "rate-precision", 0.05, "with --find-max-rate: stop when the highest rate that met the SLO and the lowest that missed it are within this fraction")
	fs.Float64Var(&s.target, "slo-attainment", plan.DefaultGoodput, "share of a step's requests that must meet the SLO for the step to meet it")
	fs.IntVar(&s.steps, "max-steps", 24, "with --find-max-rate: most steps the search takes")
}

// check reports a search flag out of range.
func (s searchFlags) check(f *benchFlags) error {
	switch {
	case !s.on:
		if f.set["step-requests"] || f.set["step-duration"] || f.set["rate-precision"] || f.set["max-steps"] || f.set["slo-attainment"] {
			return errors.New("--step-requests, --step-duration, --rate-precision, --max-steps and --slo-attainment need --find-max-rate")
		}
		return nil
	case f.sloTTFT == 0 && f.sloTPOT == 0:
		return errors.New("--find-max-rate needs an SLO: --slo-ttft, --slo-tpot or both")
	case s.requests < 100:
		return fmt.Errorf("--step-requests must be at least 100, got %d", s.requests)
	case s.duration < 0:
		return fmt.Errorf("--step-duration must not be negative, got %v", s.duration)
	case !(s.precision > 0 && s.precision < 1):
		return fmt.Errorf("--rate-precision must be in (0, 1), got %v", s.precision)
	case !(s.target > 0 && s.target <= 1):
		return fmt.Errorf("--slo-attainment must be in (0, 1], got %v", s.target)
	case s.steps < 2 || s.steps > 100:
		return fmt.Errorf("--max-steps must be in [2, 100], got %d", s.steps)
	case f.set["requests"] || f.set["concurrency"] || f.burstiness > 0:
		return errors.New("--find-max-rate sets the load (--step-requests Poisson requests a step, no cap in flight): it excludes --requests, --concurrency and --burstiness")
	}
	return nil
}

// rateStep is one step of the search: a Poisson load at Rate, measured.
type rateStep struct {
	Rate     float64 `json:"rate"`
	Requests int64   `json:"requests"`
	Good     int64   `json:"good"`
	// Attained is the share of requests that met the SLO; AttainedLow
	// and AttainedHigh bound it at 95% confidence (Wilson score).
	Attained     float64 `json:"attained"`
	AttainedLow  float64 `json:"attained_low"`
	AttainedHigh float64 `json:"attained_high"`
	Goodput      float64 `json:"goodput"`
	// TTFTP99Ms and TPOTP99Ms are nil (JSON null) when the step
	// measured no such latency: every request failed (a server that
	// refuses the rate), or, for TPOT, none had a second token.
	TTFTP99Ms *float64 `json:"ttft_p99_ms"`
	TPOTP99Ms *float64 `json:"tpot_p99_ms"`
	Meets     bool     `json:"meets"`
	// Pooled marks a step measured again at the rate of the step before
	// it, whose miss was unsure (see unsureMiss): its counts and
	// attainment are both steps', its p99s the larger of the two (a bound
	// on the pooled p99), its goodput their mean, and Meets judges the
	// pooled attainment.
	Pooled bool `json:"pooled,omitempty"`
}

// unsureMiss reports whether st missed the target by so little that its
// 95% interval still holds it: a few slow requests, which a loaded
// client or a busy host can cause, and not the queue of a rate past
// capacity, whose attainment falls far below. Such a step is measured
// again before the search believes it. A step that met the target is
// never doubted: at a target of 99% even 300 of 300 has an interval
// reaching below it.
func (st rateStep) unsureMiss(target float64) bool {
	return !st.Meets && st.Requests > 0 && st.AttainedHigh >= target
}

// pool returns the judgement of a and b, two steps at one rate, taken
// together (see rateStep.Pooled).
func pool(a, b rateStep, target float64) rateStep {
	p := rateStep{Rate: b.Rate, Requests: a.Requests + b.Requests, Good: a.Good + b.Good,
		Goodput: (a.Goodput + b.Goodput) / 2, TTFTP99Ms: maxMs(a.TTFTP99Ms, b.TTFTP99Ms), TPOTP99Ms: maxMs(a.TPOTP99Ms, b.TPOTP99Ms), Pooled: true}
	p.Attained = float64(p.Good) / float64(p.Requests)
	p.AttainedLow, p.AttainedHigh = wilson(p.Good, p.Requests)
	p.Meets = p.Attained >= target
	return p
}

// maxMs returns the larger of two step latencies, either of which may be
// unmeasured (nil); nil when both are.
func maxMs(a, b *float64) *float64 {
	if a == nil || b != nil && *b > *a {
		return b
	}
	return a
}

// p99Ms returns d's p99 in ms; nil when d holds no value.
func p99Ms(d metrics.Dist) *float64 {
	if d.Count == 0 {
		return nil
	}
	v := msf(d.P99)
	return &v
}

// stepMsText formats a step latency with one decimal, or a dash when the
// step measured none.
func stepMsText(v *float64) string {
	if v == nil {
		return "–"
	}
	return f1(*v)
}

// newRateStep judges a step's snapshot against the attainment target.
func newRateStep(rate float64, s metrics.Snapshot, target float64) rateStep {
	st := rateStep{Rate: rate, Requests: s.Requests, Good: s.Good, Goodput: s.Goodput,
		TTFTP99Ms: p99Ms(s.TTFT), TPOTP99Ms: p99Ms(s.TPOT)}
	if s.Requests > 0 {
		st.Attained = float64(s.Good) / float64(s.Requests)
		st.AttainedLow, st.AttainedHigh = wilson(s.Good, s.Requests)
	}
	st.Meets = s.Requests > 0 && st.Attained >= target
	return st
}

// wilson returns the 95% Wilson score interval of good successes in n.
func wilson(good, n int64) (lo, hi float64) {
	const z = 1.959964
	p, fn := float64(good)/float64(n), float64(n)
	d := 1 + z*z/fn
	c := (p + z*z/(2*fn)) / d
	h := z * math.Sqrt(p*(1-p)/fn+z*z/(4*fn*fn)) / d
	return max(c-h, 0), min(c+h, 1)
}

// stepRequests is how many requests a step at rate sends: at least
// s.requests, and enough to last s.duration.
func (s searchFlags) stepRequests(rate float64) int {
	return max(s.requests, int(math.Ceil(rate*s.duration.Seconds())))
}

// rateSearch is --find-max-rate's result: the highest rate that met the
// SLO, the lowest that missed it, and every step walked, in order.
type rateSearch struct {
	MaxRate   float64    `json:"max_rate"`
	MissRate  float64    `json:"first_miss_rate"`
	Precision float64    `json:"precision"`
	Target    float64    `json:"attainment_target"`
	Steps     []rateStep `json:"steps"`
	Verdict   string     `json:"verdict"`
	// interrupted is set when an interruption, not the search, ended it.
	interrupted bool
}

// minSearchRate is the lowest rate the search halves down to.
const minSearchRate = 1.0 / 1024

// searchRate walks the rate from start: doubling while steps meet the
// SLO, halving while they miss, then bisecting between the highest rate
// that met and the lowest that missed until they are within precision of
// each other, in at most maxSteps steps. A step whose miss is unsure is
// measured again and judged with its repeat (see rateStep.unsureMiss):
// one noisy step would otherwise end a climb far below capacity. measure
// runs one step; false stops the search (an interruption).
func searchRate(measure func(rate float64) (rateStep, bool), start, precision, target float64, maxSteps int) *rateSearch {
	s := &rateSearch{Precision: precision, Target: target}
	r := start
	for len(s.Steps) < maxSteps {
		st, ok := measure(r)
		if ok && st.unsureMiss(target) && len(s.Steps)+1 < maxSteps {
			s.Steps = append(s.Steps, st)
			var again rateStep
			if again, ok = measure(r); ok {
				st = pool(st, again, target)
			}
		}
		if !ok {
			s.interrupted = true
			break
		}
		s.Steps = append(s.Steps, st)
		if st.Meets {
			s.MaxRate = max(s.MaxRate, r)
		} else if s.MissRate == 0 || r < s.MissRate {
			s.MissRate = r
		}
		switch {
		case s.MissRate == 0:
			r *= 2
		case s.MaxRate == 0 && r/2 >= minSearchRate:
			r /= 2
		case s.MaxRate == 0 || (s.MissRate-s.MaxRate) <= precision*s.MaxRate:
			s.Verdict = s.verdict()
			return s
		default:
			r = (s.MaxRate + s.MissRate) / 2
		}
	}
	s.Verdict = s.verdict()
	return s
}

// verdict says what the search found, in one line, and what ended it
// when it did not: the step limit or an interruption.
func (s *rateSearch) verdict() string {
	ended := "the step limit ended the search"
	if s.interrupted {
		ended = fmt.Sprintf("interrupted after %d steps", len(s.Steps))
	}
	switch {
	case len(s.Steps) == 0 && s.interrupted:
		return "interrupted: no step completed"
	case len(s.Steps) == 0:
		return "no step completed"
	case s.MaxRate == 0 && s.interrupted:
		return fmt.Sprintf("no rate met the SLO, down to %.4g req/s (%s)", s.Steps[len(s.Steps)-1].Rate, ended)
	case s.MaxRate == 0:
		return fmt.Sprintf("no rate met the SLO, down to %.4g req/s", s.Steps[len(s.Steps)-1].Rate)
	case s.MissRate == 0:
		return fmt.Sprintf("every rate met the SLO, up to %.4g req/s: %s before a miss", s.MaxRate, ended)
	}
	best := s.best()
	within := "within"
	if s.MissRate-s.MaxRate > s.Precision*s.MaxRate {
		within = ended + " at"
	}
	return fmt.Sprintf("%.4g req/s meets the SLO and %.4g misses it (%s %.0f%%); at %.4g, %.1f%% of %d requests met it (95%% confidence: %.1f–%.1f%%)",
		s.MaxRate, s.MissRate, within, 100*(s.MissRate-s.MaxRate)/s.MaxRate, best.Rate, 100*best.Attained, best.Requests, 100*best.AttainedLow, 100*best.AttainedHigh)
}

// best returns the step at MaxRate (the last measured there).
func (s *rateSearch) best() rateStep {
	var b rateStep
	for _, st := range s.Steps {
		if st.Meets && st.Rate == s.MaxRate {
			b = st
		}
	}
	return b
}

// stepVerdict is what the curve says of step i: "meets" or "miss", and,
// for a step measured again, which step it was judged with (see
// rateStep.Pooled).
func (s *rateSearch) stepVerdict(i int) string {
	v := "miss"
	if s.Steps[i].Meets {
		v = "meets"
	}
	if s.Steps[i].Pooled {
		v += fmt.Sprintf(" (with step %d)", i)
	}
	return v
}

// judgedAgain reports whether step i is an unsure miss the step after it
// judged again, with its repeat (see rateStep.Pooled): the search did not
// take its verdict.
func (s *rateSearch) judgedAgain(i int) bool {
	return i+1 < len(s.Steps) && s.Steps[i+1].Pooled
}

// writeText writes the curve walked and the verdict.
func (s *rateSearch) writeText(w io.Writer) {
	fmt.Fprintf(w, "rate search  a step meets the SLO when at least %.1f%% of its requests do; bisected to %.0f%%\n\n", 100*s.Target, 100*s.Precision)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\trate/s\trequests\tmet SLO\t95% conf.\tgoodput/s\tTTFT p99 ms\tTPOT p99 ms\t\t")
	for i, st := range s.Steps {
		fmt.Fprintf(tw, "%d\t%.4g\t%d\t%.1f%%\t%.1f–%.1f%%\t%.2f\t%s\t%s\t%s\t\n", i+1, st.Rate, st.Requests, 100*st.Attained,
			100*st.AttainedLow, 100*st.AttainedHigh, st.Goodput, stepMsText(st.TTFTP99Ms), stepMsText(st.TPOTP99Ms), s.stepVerdict(i))
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "\nmax rate     %s\n\n", s.Verdict)
}
