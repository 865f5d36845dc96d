package main

import (
	"errors"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tokenpace/tokenpace"
)

// errNothingToPlot is writePlot's error when no request produced a token.
var errNothingToPlot = errors.New("no request produced a token: nothing to plot")

// writePlot draws three panels from the recorded timings, the TTFT
// cumulative distribution, the ITL histogram and the output throughput over
// time, and writes them to path as PNG or SVG, after its extension.
func writePlot(path string, res *loadResult) error {
	ttft, itl, tput := plotData(res.timings)
	if len(ttft) == 0 {
		return errNothingToPlot
	}

	cdf := plot.New()
	cdf.Title.Text = "Time to first token (CDF)"
	cdf.X.Label.Text = "TTFT (ms)"
	cdf.Y.Label.Text = "share of requests"
	pts := make(plotter.XYs, len(ttft))
	for i, v := range ttft {
		pts[i] = plotter.XY{X: v, Y: float64(i+1) / float64(len(ttft))}
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	cdf.Add(line, plotter.NewGrid())

	hist := plot.New()
	hist.Title.Text = "Inter-token latency (up to p99)"
	hist.X.Label.Text = "ITL (ms)"
	hist.Y.Label.Text = "gaps"
	if len(itl) > 0 {
		// The slowest 1% would squeeze the rest into one bar; the table
		// reports them.
		slices.Sort(itl)
		itl = itl[:max(1, int(0.99*float64(len(itl))))]
		h, err := plotter.NewHist(plotter.Values(itl), 40)
		if err != nil {
			return err
		}
		hist.Add(h)
	}

	tp := plot.New()
	tp.Title.Text = "Output throughput"
	tp.X.Label.Text = "time since start (s)"
	tp.Y.Label.Text = "tokens/s"
	if len(tput) > 0 {
		l, err := plotter.NewLine(tput)
		if err != nil {
			return err
		}
		tp.Add(l, plotter.NewGrid())
	}

	plots := [][]*plot.Plot{{cdf}, {hist}, {tp}}
	tiles := draw.Tiles{Rows: 3, Cols: 1, PadX: vg.Millimeter, PadY: 6 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
	return writeCanvas(path, 7*vg.Inch, 10*vg.Inch, func(dc draw.Canvas) {
		canvases := plot.Align(plots, tiles, dc)
		for i, row := range plots {
			row[0].Draw(canvases[i][0])
		}
	})
}

// plotData returns the sorted TTFTs and the ITLs in milliseconds, and the
// output tokens per second in bins of about a fiftieth of the run.
func plotData(ts []*tokenpace.Timing) (ttft, itl []float64, tput plotter.XYs) {
	var start, end time.Time
	for _, t := range ts {
		if len(t.Chunks) == 0 {
			continue
		}
		ttft = append(ttft, msf(t.TTFT()))
		for _, d := range t.ITL() {
			itl = append(itl, msf(d))
		}
		if start.IsZero() || t.Sent.Before(start) {
			start = t.Sent
		}
		if last := t.Chunks[len(t.Chunks)-1]; last.After(end) {
			end = last
		}
	}
	slices.Sort(ttft)
	if len(ttft) == 0 || !end.After(start) {
		return ttft, itl, nil
	}
	bin := max(end.Sub(start)/50, 10*time.Millisecond)
	n := int(end.Sub(start)/bin) + 1
	tokens := make([]float64, n)
	for _, t := range ts {
		if len(t.Chunks) == 0 {
			continue
		}
		per := float64(t.OutputTokens) / float64(len(t.Chunks))
		for _, at := range t.Chunks {
			tokens[int(at.Sub(start)/bin)] += per
		}
	}
	for i, v := range tokens {
		tput = append(tput, plotter.XY{X: (time.Duration(i)*bin + bin/2).Seconds(), Y: v / bin.Seconds()})
	}
	return ttft, itl, tput
}
