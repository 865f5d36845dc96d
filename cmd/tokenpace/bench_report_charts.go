package main

import (
	"slices"
	"time"

	"github.com/tokenpace/tokenpace"
)

// charts draws the report's charts from the kept timings: the TTFT, TPOT,
// ITL and E2E distributions, latency over time, throughput and goodput
// over time, and the rate search's curve.
func (r *benchReport) charts() []htmlChart {
	ts := r.res.timings
	ttft, itl, tput := plotData(ts)
	var tpot, e2e []float64
	for _, t := range ts {
		if t.Err == nil && len(t.Chunks) > 0 {
			tpot, e2e = append(tpot, msf(t.TPOT())), append(e2e, msf(t.E2E()))
		}
	}
	ttftSeries := []svgSeries{{name: "TTFT", color: svgBlue, pts: cdf(ttft)}}
	if r.f.sess.on() {
		ttftSeries = append(ttftSeries,
			svgSeries{name: "first turns", color: svgOrange, pts: cdf(durationsMs(r.res.turnTTFT[0])), dash: true},
			svgSeries{name: "later turns", color: svgGreen, pts: cdf(durationsMs(r.res.turnTTFT[1])), dash: true})
	}
	out := []htmlChart{
		chart(svgChart{id: "ttft", title: "TTFT distribution", xlabel: "ms", ylabel: "share of requests ≤ x", series: ttftSeries}),
		chart(svgChart{id: "tpot", title: "TPOT distribution", xlabel: "ms per output token", ylabel: "share of requests ≤ x", series: []svgSeries{{name: "TPOT", color: svgOrange, pts: cdf(tpot)}}}),
		chart(svgChart{id: "itl", title: "ITL distribution", xlabel: "ms between chunks", ylabel: "share of gaps ≤ x", series: []svgSeries{{name: "ITL", color: svgGreen, pts: cdf(itl)}}}),
		chart(svgChart{id: "e2e", title: "E2E distribution", xlabel: "ms", ylabel: "share of requests ≤ x", series: []svgSeries{{name: "E2E", color: svgPurple, pts: cdf(e2e)}}}),
		chart(r.overTime(ts)),
	}
	var tp [][2]float64
	for _, p := range tput {
		tp = append(tp, [2]float64{p.X, p.Y})
	}
	out = append(out,
		chart(svgChart{id: "throughput", title: "Output throughput over time", xlabel: "s since the first send", ylabel: "tokens/s", series: []svgSeries{{name: "output tokens/s", color: svgBlue, pts: tp}}}),
		chart(r.goodputOverTime(ts)))
	if s := r.search; s != nil {
		out = append(out, chart(s.chart()))
	}
	return out
}

// overTime plots each request's TTFT and E2E at its send time.
func (r *benchReport) overTime(ts []*tokenpace.Timing) svgChart {
	start := firstSent(ts)
	var ttft, e2e [][2]float64
	for _, t := range ts {
		if t.Err == nil && len(t.Chunks) > 0 {
			x := t.Sent.Sub(start).Seconds()
			ttft, e2e = append(ttft, [2]float64{x, msf(t.TTFT())}), append(e2e, [2]float64{x, msf(t.E2E())})
		}
	}
	return svgChart{id: "latency-over-time", title: "Latency over time", xlabel: "s since the first send", ylabel: "ms",
		series: []svgSeries{{name: "E2E", color: svgPurple, pts: e2e, scatter: true}, {name: "TTFT", color: svgBlue, pts: ttft, scatter: true}}}
}

// goodputOverTime plots the requests that ended, and those that met the
// SLO, per second, in about fifty bins by end time.
func (r *benchReport) goodputOverTime(ts []*tokenpace.Timing) svgChart {
	c := svgChart{id: "goodput", title: "Throughput and goodput over time", xlabel: "s since the first send", ylabel: "requests/s"}
	start, end := firstSent(ts), time.Time{}
	for _, t := range ts {
		if t.End.After(end) {
			end = t.End
		}
	}
	if len(ts) == 0 || !end.After(start) {
		return c
	}
	bin := max(end.Sub(start)/50, 10*time.Millisecond)
	done, ok := make([]float64, int(end.Sub(start)/bin)+1), make([]float64, int(end.Sub(start)/bin)+1)
	for _, t := range ts {
		i := int(t.End.Sub(start) / bin)
		if i < 0 || i >= len(done) {
			continue
		}
		if t.Err == nil {
			done[i]++
		}
		if good(t, r.f.sloTTFT, r.f.sloTPOT) {
			ok[i]++
		}
	}
	var d, g [][2]float64
	for i := range done {
		x := (time.Duration(i)*bin + bin/2).Seconds()
		d, g = append(d, [2]float64{x, done[i] / bin.Seconds()}), append(g, [2]float64{x, ok[i] / bin.Seconds()})
	}
	c.series = []svgSeries{{name: "completed", color: svgBlue, pts: d}, {name: "met the SLO", color: svgGreen, pts: g}}
	return c
}

// chart plots the search's goodput and attainment against the rate: a
// step judged again with its repeat is plotted once, as judged.
func (s *rateSearch) chart() svgChart {
	var steps []rateStep
	for i, st := range s.Steps {
		if !s.judgedAgain(i) {
			steps = append(steps, st)
		}
	}
	slices.SortStableFunc(steps, func(a, b rateStep) int {
		if a.Rate < b.Rate {
			return -1
		}
		if a.Rate > b.Rate {
			return 1
		}
		return 0
	})
	var offered, goodput, meets, misses [][2]float64
	for _, st := range steps {
		offered = append(offered, [2]float64{st.Rate, st.Rate})
		goodput = append(goodput, [2]float64{st.Rate, st.Goodput})
		if st.Meets {
			meets = append(meets, [2]float64{st.Rate, st.Goodput})
		} else {
			misses = append(misses, [2]float64{st.Rate, st.Goodput})
		}
	}
	return svgChart{id: "rate-search", title: "Rate search: goodput against offered rate", xlabel: "offered requests/s", ylabel: "goodput, requests/s",
		series: []svgSeries{{name: "offered", color: "#999", pts: offered, dash: true}, {name: "goodput", color: svgBlue, pts: goodput},
			{name: "step met the SLO", color: svgGreen, pts: meets, scatter: true}, {name: "step missed", color: svgRed, pts: misses, scatter: true}}}
}

// cdf returns the empirical distribution of v: (value, share ≤ value).
func cdf(v []float64) [][2]float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	out := make([][2]float64, len(v))
	for i, x := range v {
		out[i] = [2]float64{x, float64(i+1) / float64(len(v))}
	}
	return out
}

// durationsMs returns d in ms.
func durationsMs(d []time.Duration) []float64 {
	out := make([]float64, len(d))
	for i, x := range d {
		out[i] = msf(x)
	}
	return out
}

// firstSent returns the earliest send of ts.
func firstSent(ts []*tokenpace.Timing) time.Time {
	var start time.Time
	for _, t := range ts {
		if !t.Sent.IsZero() && (start.IsZero() || t.Sent.Before(start)) {
			start = t.Sent
		}
	}
	return start
}
