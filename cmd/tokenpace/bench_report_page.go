package main

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
)

// maxReportRows bounds the per-request table of an HTML report.
const maxReportRows = 20000

// page returns the run as an HTML report.
func (r *benchReport) page() *htmlPage {
	p := &htmlPage{Title: "tokenpace bench: " + r.mdl, Settings: r.settings()}
	p.Data, _ = r.jsonObject()
	p.Tables = append(p.Tables, r.summaryTable(), latencyTable(r.snap))
	if t := r.turns(); t != nil {
		p.Tables = append(p.Tables, htmlTable{ID: "turns", Caption: "Sessions: TTFT by turn (ms)", Head: []string{"turns", "count", "p50", "p90", "p99", "max"},
			Rows: [][]string{quantileRow("first", t.FirstTTFTMs), quantileRow("later (carry the conversation)", t.LaterTTFTMs)}})
	}
	if s := r.search; s != nil {
		p.Tables = append(p.Tables, s.table())
	}
	p.Charts = r.charts()
	p.Requests = r.requestTable()
	return p
}

// settings lists the run's settings.
func (r *benchReport) settings() [][2]string {
	f := r.f
	load := r.load
	if load == "" {
		load = fmt.Sprintf("%s, closed loop of %s, %s, max_tokens %d", count(f.requests, "request"), count(f.concurrency, "client"), count(f.prompt, "prompt token"), f.maxTokens)
		if f.rate > 0 {
			load = fmt.Sprintf("%s, Poisson arrivals at %g/s, %s, max_tokens %d", count(f.requests, "request"), f.rate, count(f.prompt, "prompt token"), f.maxTokens)
		}
	}
	slo := sloText(f.sloTTFT, f.sloTPOT)
	if slo == "" {
		slo = "none (every completed request counts as good)"
	}
	return [][2]string{{"endpoint", r.what}, {"model", r.mdl}, {"load", load}, {"SLO", slo},
		{"seed", strconv.FormatUint(f.seed, 10)}, {"warm-up", strconv.Itoa(f.warmup)}, {"timeout", f.timeout.String()}}
}

// summaryTable lists counts, throughput and goodput.
func (r *benchReport) summaryTable() htmlTable {
	s := r.snap
	goodput := fmt.Sprintf("%.2f req/s, %.1f tokens/s (%d of %d met the SLO)", s.Goodput, s.TokenGoodput, s.Good, s.Requests)
	if r.f.sloTTFT == 0 && r.f.sloTPOT == 0 {
		goodput = fmt.Sprintf("%.2f req/s (no SLO set: every completed request counts)", s.Goodput)
	}
	return htmlTable{ID: "summary", Caption: "Throughput and goodput", Head: []string{"figure", "value"}, Rows: [][]string{
		{"requests completed / failed", fmt.Sprintf("%d / %d", s.Completed, s.Failed)},
		{"duration", fmt.Sprintf("%.2f s", s.Duration.Seconds())},
		{"request throughput", fmt.Sprintf("%.2f req/s", s.RequestThroughput)},
		{"output throughput", fmt.Sprintf("%.1f tokens/s", s.OutputThroughput)},
		{"goodput", goodput},
		{"tokens", fmt.Sprintf("%d in (%d cached), %d out", s.InputTokens, s.CachedTokens, s.OutputTokens)},
	}}
}

// latencyTable lists the latency percentiles of s.
func latencyTable(s metrics.Snapshot) htmlTable {
	t := htmlTable{ID: "latency", Caption: "Latency (ms)", Head: []string{"metric", "count", "mean", "p50", "p90", "p95", "p99", "max"}}
	for _, row := range []struct {
		name string
		d    metrics.Dist
	}{{"TTFT", s.TTFT}, {"TPOT", s.TPOT}, {"ITL", s.ITL}, {"E2E", s.E2E}} {
		t.Rows = append(t.Rows, append([]string{row.name, strconv.FormatInt(int64(row.d.Count), 10)}, distFigures(row.d)...))
	}
	return t
}

// quantileRow is a row of a quantilesMs map.
func quantileRow(name string, m map[string]float64) []string {
	return []string{name, fmt.Sprint(m["count"]), f1(m["p50"]), f1(m["p90"]), f1(m["p99"]), f1(m["max"])}
}

// table is the rate search's curve as a table.
func (s *rateSearch) table() htmlTable {
	t := htmlTable{ID: "rate-search", Caption: "Rate search", Note: "Highest rate: " + s.Verdict,
		Head: []string{"step", "rate/s", "requests", "met SLO", "95% confidence", "goodput/s", "TTFT p99 ms", "TPOT p99 ms", "verdict"}}
	for i, st := range s.Steps {
		t.Rows = append(t.Rows, []string{strconv.Itoa(i + 1), fmt.Sprintf("%.4g", st.Rate), strconv.FormatInt(st.Requests, 10),
			fmt.Sprintf("%.1f%%", 100*st.Attained), fmt.Sprintf("%.1f–%.1f%%", 100*st.AttainedLow, 100*st.AttainedHigh),
			fmt.Sprintf("%.2f", st.Goodput), stepMsText(st.TTFTP99Ms), stepMsText(st.TPOTP99Ms), s.stepVerdict(i)})
	}
	return t
}

// requestTable lists every request, at most maxReportRows.
func (r *benchReport) requestTable() *htmlTable {
	rows := slices.Clone(r.res.rows)
	if len(rows) == 0 {
		return nil
	}
	slices.SortFunc(rows, func(a, b requestRow) int { return a.I - b.I })
	t := &htmlTable{Caption: "Requests", Head: []string{"#", "sent (s)", "late ms", "TTFT ms", "TPOT ms", "E2E ms", "prompt", "cached", "output", "finish", "error"}}
	var start time.Time
	for _, row := range rows {
		if row.Sent != nil && (start.IsZero() || row.Sent.Before(start)) {
			start = *row.Sent
		}
	}
	if len(rows) > maxReportRows {
		t.Note = fmt.Sprintf("The first %d of %d requests; --export writes them all.", maxReportRows, len(rows))
		rows = rows[:maxReportRows]
	}
	for _, q := range rows {
		sent := ""
		if q.Sent != nil {
			sent = fmt.Sprintf("%.3f", q.Sent.Sub(start).Seconds())
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(q.I), sent, f1(q.LateMs), f1(q.TTFTMs), f1(q.TPOTMs), f1(q.E2EMs),
			strconv.Itoa(q.PromptTokens), strconv.Itoa(q.CachedTokens), strconv.Itoa(q.OutputTokens), q.FinishReason, q.Error})
	}
	return t
}

func ms1(d time.Duration) string { return f1(msf(d)) }
func f1(v float64) string        { return strconv.FormatFloat(v, 'f', 1, 64) }

// good reports whether t met the SLO of ttft and tpot (0: no limit).
func good(t *tokenpace.Timing, ttft, tpot time.Duration) bool {
	return t.Err == nil && len(t.Chunks) > 0 && (ttft == 0 || t.TTFT() <= ttft) && (tpot == 0 || t.TPOT() <= tpot)
}
