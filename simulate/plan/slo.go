package plan

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
	"github.com/tokenpace/tokenpace/simulate/internal/sigfig"
)

// SLO is a latency objective for a workload: bounds on percentiles of the
// figures that tokenpace.Budget and metrics.SLO bound per request (TTFT,
// TPOT, E2E), and the share of requests that must meet them. Every
// field's zero value means no limit, except Goodput, whose zero means
// 0.99.
type SLO struct {
	// TTFTP50, TTFTP90 and TTFTP99 bound percentiles of time to first
	// token.
	TTFTP50, TTFTP90, TTFTP99 time.Duration
	// TPOTP99 bounds the 99th percentile of time per output token, over
	// requests of two or more output tokens.
	TPOTP99 time.Duration
	// E2EP99 bounds the 99th percentile of end-to-end latency.
	E2EP99 time.Duration
	// Goodput is the share of requests that must meet every per-request
	// limit: TTFT within TTFTP99, TPOT within TPOTP99, E2E within E2EP99
	// (the p50 and p90 limits bound percentiles only). Zero means 0.99; it
	// applies only when one of those three limits is set.
	Goodput float64
	// Deadline is, for a batch job, the time by which every request must
	// have finished (since the first arrival); zero means none.
	Deadline time.Duration
}

// DefaultGoodput is the share of requests that must meet the SLO when
// SLO.Goodput is zero.
const DefaultGoodput = 0.99

func (s SLO) goodput() float64 {
	if s.Goodput == 0 {
		return DefaultGoodput
	}
	return s.Goodput
}

// Validate reports a negative limit or a goodput outside (0, 1].
func (s SLO) Validate() error {
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"TTFT p50", s.TTFTP50}, {"TTFT p90", s.TTFTP90}, {"TTFT p99", s.TTFTP99}, {"TPOT p99", s.TPOTP99}, {"E2E p99", s.E2EP99}, {"deadline", s.Deadline}} {
		if f.v < 0 {
			return &simulate.InvalidError{Field: "SLO " + f.name, Value: f.v, Reason: "must not be negative"}
		}
	}
	if g := s.goodput(); !(g > 0 && g <= 1) {
		return &simulate.InvalidError{Field: "SLO goodput", Value: s.Goodput, Reason: "must be in (0, 1]"}
	}
	return nil
}

// latency reports whether a per-request latency limit is set.
func (s SLO) latency() bool {
	return s.TTFTP50 > 0 || s.TTFTP90 > 0 || s.TTFTP99 > 0 || s.TPOTP99 > 0 || s.E2EP99 > 0
}

// perRequest reports whether a per-request limit (for goodput) is set.
func (s SLO) perRequest() bool { return s.TTFTP99 > 0 || s.TPOTP99 > 0 || s.E2EP99 > 0 }

// Measured is what an offline run of a workload achieved.
type Measured struct {
	// TTFTP50, TTFTP90, TTFTP99 are percentiles of time to first token
	// (nearest rank); a request that never produced a token counts as
	// infinitely late.
	TTFTP50, TTFTP90, TTFTP99 time.Duration
	// TPOTP99 is the 99th percentile of TPOT over requests of two or more
	// output tokens.
	TPOTP99 time.Duration
	// E2EP99 is the 99th percentile of end-to-end latency.
	E2EP99 time.Duration
	// Goodput is the share of requests that met every per-request limit
	// of the SLO Measure was given (1 when it sets none), and finished.
	Goodput float64
	// Makespan is from the first arrival to the last token; the largest
	// Duration when no request finished.
	Makespan time.Duration
	// Requests and Finished count the workload's requests and those that
	// produced all their tokens.
	Requests, Finished int
	// OutputTokens is the tokens generated.
	OutputTokens int64
}

// never stands for a latency that was never reached.
const never = time.Duration(math.MaxInt64)

// Measure summarises the results of an offline run (simulate.Run) against
// slo.
func Measure(results []simulate.Result, slo SLO) Measured {
	m := Measured{Requests: len(results)}
	if len(results) == 0 {
		return m
	}
	ttft := make([]time.Duration, 0, len(results))
	tpot := make([]time.Duration, 0, len(results))
	e2e := make([]time.Duration, 0, len(results))
	first, last := never, time.Duration(0)
	good := 0
	tl := slo.TTFTP99
	for _, r := range results {
		first = min(first, r.Arrival)
		m.OutputTokens += int64(r.OutputTokens)
		if !r.Done {
			ttft = append(ttft, never)
			e2e = append(e2e, never)
			continue
		}
		m.Finished++
		last = max(last, r.Arrival+r.E2E)
		ttft = append(ttft, r.TTFT)
		e2e = append(e2e, r.E2E)
		if r.OutputTokens >= 2 {
			tpot = append(tpot, r.TPOT())
		}
		if (tl == 0 || r.TTFT <= tl) && (slo.TPOTP99 == 0 || r.TPOT() <= slo.TPOTP99) && (slo.E2EP99 == 0 || r.E2E <= slo.E2EP99) {
			good++
		}
	}
	slices.Sort(ttft)
	slices.Sort(tpot)
	slices.Sort(e2e)
	m.TTFTP50, m.TTFTP90, m.TTFTP99 = pct(ttft, 0.50), pct(ttft, 0.90), pct(ttft, 0.99)
	m.TPOTP99, m.E2EP99 = pct(tpot, 0.99), pct(e2e, 0.99)
	m.Goodput = float64(good) / float64(len(results))
	if m.Finished > 0 {
		m.Makespan = last - first
	} else {
		m.Makespan = never
	}
	return m
}

// pct is the nearest-rank p-quantile of sorted values; zero for none.
func pct(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Miss is one limit of an SLO that a run did not meet.
type Miss struct {
	// Metric names the limit: "ttft_p50", "ttft_p90", "ttft_p99",
	// "tpot_p99", "e2e_p99", "goodput" or "deadline".
	Metric string
	// Limit and Got are the limit and the achieved value, in milliseconds
	// for latencies and as a share for goodput.
	Limit, Got float64
}

// String says which limit was missed and by how much, e.g.
// "TTFT p99 212 ms > 180 ms (+18%)".
func (m Miss) String() string {
	names := map[string]string{"ttft_p50": "TTFT p50", "ttft_p90": "TTFT p90", "ttft_p99": "TTFT p99",
		"tpot_p99": "TPOT p99", "e2e_p99": "E2E p99", "goodput": "goodput", "deadline": "finish"}
	if m.Metric == "goodput" {
		return fmt.Sprintf("goodput %s%% < %s%%", sigfig.Num(m.Got*100), sigfig.Num(m.Limit*100))
	}
	if math.IsInf(m.Got, 1) {
		return fmt.Sprintf("%s never (limit %s ms)", names[m.Metric], sigfig.Num(m.Limit))
	}
	return fmt.Sprintf("%s %s ms > %s ms (+%s%%)", names[m.Metric], sigfig.Num(m.Got), sigfig.Num(m.Limit), sigfig.Num((m.Got/m.Limit-1)*100))
}

// Check returns the limits of s that m misses, in the order of SLO's
// fields; none means m meets s.
func (s SLO) Check(m Measured) []Miss {
	var out []Miss
	for _, c := range []struct {
		name       string
		limit, got time.Duration
	}{
		{"ttft_p50", s.TTFTP50, m.TTFTP50}, {"ttft_p90", s.TTFTP90, m.TTFTP90}, {"ttft_p99", s.TTFTP99, m.TTFTP99},
		{"tpot_p99", s.TPOTP99, m.TPOTP99}, {"e2e_p99", s.E2EP99, m.E2EP99}, {"deadline", s.Deadline, m.Makespan},
	} {
		if c.limit > 0 && c.got > c.limit {
			out = append(out, Miss{Metric: c.name, Limit: msOf(c.limit), Got: msOf(c.got)})
		}
	}
	if s.perRequest() && m.Goodput < s.goodput() {
		out = append(out, Miss{Metric: "goodput", Limit: s.goodput(), Got: m.Goodput})
	}
	return out
}

func msOf(d time.Duration) float64 {
	if d == never {
		return math.Inf(1)
	}
	return float64(d) / 1e6
}
