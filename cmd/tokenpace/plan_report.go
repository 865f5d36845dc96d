package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
	"github.com/tokenpace/tokenpace/simulate/plan"
)

// planReport is what plan prints.
type planReport struct {
	f       *planFlags
	in      plan.Input
	res     *plan.Result
	desc    string
	elapsed time.Duration
}

// candidateJSON is one candidate in the JSON report; its field names are a
// contract other tools parse.
type candidateJSON struct {
	GPU                 string   `json:"gpu"`
	TP                  int      `json:"tp"`
	Replicas            int      `json:"replicas"`
	Precision           string   `json:"precision"`
	MaxBatch            int      `json:"max_batch"`
	Routing             string   `json:"routing"`
	GPUsTotal           int      `json:"gpus_total"`
	CostPerHour         float64  `json:"cost_per_hour"`
	CostPerMillionOut   float64  `json:"cost_per_million_output_tokens"`
	CostToFinish        float64  `json:"cost_to_finish,omitempty"`
	Outcome             string   `json:"outcome"`
	TTFTP50Ms           *float64 `json:"ttft_p50_ms,omitempty"`
	TTFTP90Ms           *float64 `json:"ttft_p90_ms,omitempty"`
	TTFTP99Ms           *float64 `json:"ttft_p99_ms"`
	TPOTP99Ms           *float64 `json:"tpot_p99_ms"`
	E2EP99Ms            *float64 `json:"e2e_p99_ms,omitempty"`
	Goodput             *float64 `json:"goodput"`
	FinishS             float64  `json:"finish_s,omitempty"`
	Misses              []string `json:"misses,omitempty"`
	Reason              string   `json:"reason,omitempty"`
	PrunedReplicasUpTo  int      `json:"pruned_replicas_up_to,omitempty"`
	SimArgs             []string `json:"sim_args"`
	AtLeastOneSimulated bool     `json:"simulated"`
}

// planJSON is the JSON report.
type planJSON struct {
	Model      string          `json:"model"`
	Load       string          `json:"load"`
	Samples    int             `json:"samples,omitempty"`
	Headroom   float64         `json:"headroom"`
	SLO        map[string]any  `json:"slo"`
	Search     searchJSON      `json:"search"`
	Best       *candidateJSON  `json:"best"`
	Rejected   *candidateJSON  `json:"cheapest_rejected"`
	Candidates []candidateJSON `json:"candidates"`
}

type searchJSON struct {
	Considered int     `json:"considered"`
	Simulated  int     `json:"simulated"`
	Pruned     int     `json:"pruned"`
	Skipped    int     `json:"skipped"`
	Runs       int     `json:"simulation_runs"`
	ElapsedS   float64 `json:"elapsed_s"`
	// Refused says why each tensor-parallel degree left out of the space
	// is refused by the engines.
	Refused []string `json:"refused_tp,omitempty"`
}

// simArgs are the `tokenpace sim` flags that serve c's deployment.
func (r *planReport) simArgs(c *plan.Candidate) []string {
	t := r.in.Template
	args := []string{"--model", t.Model.Name, "--gpu", c.GPU.Name, "--gpus", strconv.Itoa(c.TP), "--precision", c.Precision.Name,
		"--max-running", strconv.Itoa(c.MaxBatch)}
	if d := c.Deployment; d.MaxBatchedTokens != 0 && d.MaxBatchedTokens != 8192 {
		args = append(args, "--max-batched-tokens", strconv.Itoa(d.MaxBatchedTokens))
	}
	if t.KVCapacityTokens > 0 {
		args = append(args, "--kv-tokens", strconv.Itoa(t.KVCapacityTokens))
	}
	if t.DisablePrefixCaching {
		args = append(args, "--no-prefix-cache")
	}
	if t.KVPolicy == simulate.KVPreempt {
		args = append(args, "--kv-policy", "preempt")
	}
	if t.MBU > 0 {
		args = append(args, "--mbu", strconv.FormatFloat(t.MBU, 'g', -1, 64))
	}
	if t.MFU > 0 {
		args = append(args, "--mfu", strconv.FormatFloat(t.MFU, 'g', -1, 64))
	}
	if r.f.runtime != "" {
		args = append(args, "--runtime", r.f.runtime)
	}
	return append(args, "--replicas", strconv.Itoa(c.Replicas), "--routing", c.Routing.String())
}

func msPtr(d time.Duration) *float64 {
	v := math.Round(float64(d)/1e3) / 1e3
	if d == time.Duration(math.MaxInt64) {
		v = -1 // never: the request never finished
	}
	return &v
}

func (r *planReport) candidate(c *plan.Candidate) *candidateJSON {
	if c == nil {
		return nil
	}
	j := &candidateJSON{
		GPU: c.GPU.Name, TP: c.TP, Replicas: c.Replicas, Precision: c.Precision.Name, MaxBatch: c.MaxBatch, Routing: c.Routing.String(),
		GPUsTotal: c.GPUsTotal, CostPerHour: round(c.CostPerHour, 4), CostPerMillionOut: round(c.CostPerMillionOutputTokens, 4),
		CostToFinish: round(c.CostToFinish, 4), Outcome: c.Outcome.String(), Reason: c.Reason, SimArgs: r.simArgs(c),
	}
	if c.Outcome == plan.Pruned {
		j.PrunedReplicasUpTo = c.PrunedUpTo
		return j
	}
	j.AtLeastOneSimulated = true
	m := c.Measured
	if r.in.BatchRequests > 0 {
		j.FinishS = round(m.Makespan.Seconds(), 3)
	} else {
		j.TTFTP50Ms, j.TTFTP90Ms, j.TTFTP99Ms = msPtr(m.TTFTP50), msPtr(m.TTFTP90), msPtr(m.TTFTP99)
		j.TPOTP99Ms, j.E2EP99Ms = msPtr(m.TPOTP99), msPtr(m.E2EP99)
		g := round(m.Goodput, 4)
		j.Goodput = &g
	}
	for _, x := range c.Misses {
		j.Misses = append(j.Misses, x.String())
	}
	return j
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

func (r *planReport) sloMap() map[string]any {
	s := r.in.SLO
	out := map[string]any{}
	for _, l := range []struct {
		k string
		v time.Duration
	}{{"ttft_p50_ms", s.TTFTP50}, {"ttft_p90_ms", s.TTFTP90}, {"ttft_p99_ms", s.TTFTP99}, {"tpot_p99_ms", s.TPOTP99}, {"e2e_p99_ms", s.E2EP99}} {
		if l.v > 0 {
			out[l.k] = msf(l.v)
		}
	}
	if s.Deadline > 0 {
		out["deadline_s"] = s.Deadline.Seconds()
	} else {
		out["goodput"] = r.f.goodput
	}
	return out
}

func (r *planReport) writeJSON(w io.Writer) error {
	res := r.res
	out := planJSON{
		Model: r.in.Template.Model.Name, Load: r.desc, SLO: r.sloMap(), Headroom: r.in.Headroom,
		Search: searchJSON{Considered: res.Considered, Simulated: res.Simulated, Pruned: res.Pruned, Skipped: res.Skipped, Runs: res.Runs, ElapsedS: round(r.elapsed.Seconds(), 3), Refused: res.Refused},
		Best:   r.candidate(res.Best), Rejected: r.candidate(res.CheapestRejected()),
		Candidates: []candidateJSON{},
	}
	if r.in.BatchRequests == 0 {
		out.Samples = 1 + len(r.in.Samples)
	}
	for i := range res.Candidates {
		out.Candidates = append(out.Candidates, *r.candidate(&res.Candidates[i]))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func (r *planReport) sloText() string {
	s := r.in.SLO
	var parts []string
	for _, l := range []struct {
		k string
		v time.Duration
	}{{"TTFT p50", s.TTFTP50}, {"TTFT p90", s.TTFTP90}, {"TTFT p99", s.TTFTP99}, {"TPOT p99", s.TPOTP99}, {"E2E p99", s.E2EP99}} {
		if l.v > 0 {
			parts = append(parts, fmt.Sprintf("%s ≤ %v", l.k, l.v))
		}
	}
	if s.Deadline > 0 {
		parts = append(parts, fmt.Sprintf("finish within %v", s.Deadline))
	} else if s.TTFTP99 > 0 || s.TPOTP99 > 0 || s.E2EP99 > 0 {
		parts = append(parts, fmt.Sprintf("goodput ≥ %g%%", r.f.goodput*100))
	}
	return strings.Join(parts, ", ")
}

// figures is a candidate's measured figures on one line.
func (r *planReport) figures(c *plan.Candidate) string {
	m := c.Measured
	if r.in.BatchRequests > 0 {
		return "finishes in " + m.Makespan.Round(time.Second).String()
	}
	return fmt.Sprintf("TTFT p50 %s / p99 %s ms, TPOT p99 %s ms, goodput %.1f%%", msText(m.TTFTP50), msText(m.TTFTP99), msText(m.TPOTP99), m.Goodput*100)
}

func msText(d time.Duration) string {
	if d == time.Duration(math.MaxInt64) {
		return "never"
	}
	return strconv.FormatFloat(msf(d), 'f', 1, 64)
}

func (r *planReport) costText(c *plan.Candidate) string {
	s := fmt.Sprintf("$%.2f/h, $%.3f per 1M output tokens", c.CostPerHour, c.CostPerMillionOutputTokens)
	if c.CostToFinish > 0 {
		s = fmt.Sprintf("$%.2f to finish ($%.2f/h), $%.3f per 1M output tokens", c.CostToFinish, c.CostPerHour, c.CostPerMillionOutputTokens)
	}
	return s
}

func costOf(c *plan.Candidate) float64 { return c.Cost() }

func (r *planReport) writeText(w io.Writer) error {
	ew := &firstErr{w: w}
	res := r.res
	fmt.Fprintf(ew, "model     %s\nload      %s\nSLO       %s\n", r.in.Template.Model.Name, r.desc, r.sloText())
	fmt.Fprintf(ew, "search    %d configurations in %.2f s: %d simulated (%d runs), %d pruned by roofline bounds, %d skipped (cannot be cheaper, or settled by replica bisection)\n",
		res.Considered, r.elapsed.Seconds(), res.Simulated, res.Runs, res.Pruned, res.Skipped)
	for _, why := range res.Refused {
		fmt.Fprintf(ew, "left out  %s\n", why)
	}
	fmt.Fprintln(ew)
	best := res.Best
	if best == nil {
		fmt.Fprintln(ew, "no deployment in the space meets the SLO; the closest misses:")
	} else {
		fmt.Fprintf(ew, "best      %v: %s, %s\n          %s\n", best.Config, gpuCount(best.GPUsTotal), r.costText(best), r.figures(best))
		fmt.Fprintf(ew, "serve it  tokenpace sim %s\n\n", strings.Join(r.simArgs(best), " "))
	}

	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	batch := r.in.BatchRequests > 0
	if batch {
		fmt.Fprintln(tw, "rank\tdeployment\tGPUs\t$/h\t$ to finish\t$/1M out\tverdict")
	} else {
		fmt.Fprintln(tw, "rank\tdeployment\tGPUs\t$/h\t$/1M out\tverdict")
	}
	rank := 0
	row := func(c *plan.Candidate, verdict string) {
		rank++
		if batch {
			bound := ""
			if c.Outcome == plan.Pruned {
				bound = "≥ "
			}
			fmt.Fprintf(tw, "%d\t%v\t%d\t%.2f\t%s%.2f\t%s%.3f\t%s\n", rank, c.Config, c.GPUsTotal, c.CostPerHour, bound, c.CostToFinish, bound, c.CostPerMillionOutputTokens, verdict)
			return
		}
		fmt.Fprintf(tw, "%d\t%v\t%d\t%.2f\t%.3f\t%s\n", rank, c.Config, c.GPUsTotal, c.CostPerHour, c.CostPerMillionOutputTokens, verdict)
	}
	// The deployments that met the SLO, cheapest first: the others lose on
	// cost. A configuration that met it is listed once, at its fewest
	// replicas: more of the same only cost more.
	listed := map[string]bool{}
	for i := range res.Candidates {
		c := &res.Candidates[i]
		if c.Outcome != plan.Met || rank >= r.f.top || listed[sansReplicas(c.Config)] {
			continue
		}
		listed[sansReplicas(c.Config)] = true
		verdict := "best: meets the SLO at the lowest cost"
		if c != best {
			verdict = fmt.Sprintf("meets the SLO, costs %.0f%% more", (costOf(c)/costOf(best)-1)*100)
		}
		row(c, verdict)
	}
	// The ones no dearer that lost on the SLO: the simulated misses first
	// (they say by how much), then the pruned.
	shown := 0
	for _, outcome := range []plan.Outcome{plan.Missed, plan.Pruned} {
		for i := range res.Candidates {
			c := &res.Candidates[i]
			if c.Outcome != outcome || shown >= r.f.top || (best != nil && costOf(c) > costOf(best)) {
				continue
			}
			shown++
			verdict := "pruned (" + c.Reason + ")"
			if c.Outcome == plan.Missed {
				var ms []string
				for _, x := range c.Misses {
					ms = append(ms, x.String())
				}
				verdict = "misses " + strings.Join(ms, ", ")
			}
			row(c, verdict)
		}
	}
	tw.Flush()
	return ew.err
}

func gpuCount(n int) string {
	if n == 1 {
		return "1 GPU"
	}
	return strconv.Itoa(n) + " GPUs"
}

// sansReplicas names a configuration whatever its number of replicas.
func sansReplicas(c plan.Config) string {
	c.Replicas = 0
	return c.String()
}
