package plan_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
	"github.com/tokenpace/tokenpace/simulate/plan"
)

func TestMeasureAndCheck(t *testing.T) {
	// 100 requests: TTFT i ms for request i (1..100), 11 tokens 10 ms apart.
	var rs []simulate.Result
	for i := 1; i <= 100; i++ {
		ttft := time.Duration(i) * time.Millisecond
		rs = append(rs, simulate.Result{ID: uint64(i), TTFT: ttft, E2E: ttft + 100*time.Millisecond, OutputTokens: 11, Done: true})
	}
	slo := plan.SLO{TTFTP50: 40 * time.Millisecond, TTFTP99: 98 * time.Millisecond, TPOTP99: 10 * time.Millisecond}
	m := plan.Measure(rs, slo)
	if m.TTFTP50 != 50*time.Millisecond || m.TTFTP90 != 90*time.Millisecond || m.TTFTP99 != 99*time.Millisecond {
		t.Errorf("TTFT p50/p90/p99 = %v/%v/%v, want 50ms/90ms/99ms", m.TTFTP50, m.TTFTP90, m.TTFTP99)
	}
	if m.TPOTP99 != 10*time.Millisecond || m.E2EP99 != 199*time.Millisecond {
		t.Errorf("TPOT p99, E2E p99 = %v, %v; want 10ms, 199ms", m.TPOTP99, m.E2EP99)
	}
	if m.Goodput != 0.98 {
		t.Errorf("goodput = %v, want 0.98 (requests 99 and 100 exceed TTFT p99's 98 ms)", m.Goodput)
	}
	misses := slo.Check(m)
	var got []string
	for _, x := range misses {
		got = append(got, x.String())
	}
	want := []string{"TTFT p50 50 ms > 40 ms (+25%)", "TTFT p99 99 ms > 98 ms (+1.02%)", "goodput 98% < 99%"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("Check = %q, want %q", got, want)
	}

	// A request that never finished counts as infinitely late.
	rs[0].Done = false
	m = plan.Measure(rs, plan.SLO{TTFTP99: time.Second})
	if m.Finished != 99 || m.Goodput != 0.99 {
		t.Errorf("with one unfinished: finished %d, goodput %v; want 99, 0.99", m.Finished, m.Goodput)
	}
	if ms := (plan.SLO{TTFTP50: time.Second}).Check(plan.Measure(rs[:1], plan.SLO{})); len(ms) != 1 || !strings.Contains(ms[0].String(), "never") {
		t.Errorf("Check of an unfinished request = %v, want a TTFT p50 miss that says never", ms)
	}
}
