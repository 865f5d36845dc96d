package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tokenpace/tokenpace/simulate/plan"
)

// paretoPoint is one simulated candidate: its cost and its p99 TTFT in ms
// (for a batch job, its time to finish in hours).
type paretoPoint struct {
	cost, latency float64
	met           bool
}

// paretoFront returns the points no other point beats on both cost and
// latency, cheapest first.
func paretoFront(pts []paretoPoint) []paretoPoint {
	s := slices.Clone(pts)
	slices.SortFunc(s, func(a, b paretoPoint) int {
		return cmp.Or(cmp.Compare(a.cost, b.cost), cmp.Compare(a.latency, b.latency))
	})
	var front []paretoPoint
	best := math.Inf(1)
	for _, p := range s {
		if p.latency < best {
			front = append(front, p)
			best = p.latency
		}
	}
	return front
}

// writeParetoPlot draws the simulated candidates, cost against p99 TTFT
// (or time to finish), with their Pareto front and the SLO limit, to path
// as PNG or SVG, after its extension.
func writeParetoPlot(path string, r *planReport) error {
	batch := r.in.BatchRequests > 0
	pts := plotPoints(r, batch)
	if len(pts) == 0 {
		return fmt.Errorf("no candidate was simulated: nothing to plot")
	}
	p := plot.New()
	p.Title.Text = "Cost vs p99 TTFT of the simulated deployments"
	p.X.Label.Text = "cost (USD per hour)"
	p.Y.Label.Text = "TTFT p99 (ms)"
	limit := float64(r.in.SLO.TTFTP99) / 1e6
	if batch {
		p.Title.Text = "Cost to finish vs time to finish"
		p.X.Label.Text = "cost to finish (USD)"
		p.Y.Label.Text = "time to finish (h)"
		limit = r.in.SLO.Deadline.Hours()
	}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	var met, missed plotter.XYs
	for _, q := range pts {
		xy := plotter.XY{X: q.cost, Y: math.Max(q.latency, 1e-3)}
		if q.met {
			met = append(met, xy)
		} else {
			missed = append(missed, xy)
		}
	}
	for _, s := range []struct {
		xys   plotter.XYs
		name  string
		shape draw.GlyphDrawer
	}{{met, "meets the SLO", draw.CircleGlyph{}}, {missed, "misses it", draw.CrossGlyph{}}} {
		if len(s.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(s.xys)
		if err != nil {
			return err
		}
		sc.GlyphStyle.Shape = s.shape
		p.Add(sc)
		p.Legend.Add(s.name, sc)
	}
	if err := addFrontAndLimit(p, pts, limit); err != nil {
		return err
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	return writeCanvas(path, 7*vg.Inch, 5*vg.Inch, p.Draw)
}

// plotPoints returns the simulated candidates of r as points: cost per
// hour and p99 TTFT in ms, or for a batch job cost and time to finish.
func plotPoints(r *planReport, batch bool) []paretoPoint {
	var pts []paretoPoint
	for i := range r.res.Candidates {
		c := &r.res.Candidates[i]
		if c.Outcome == plan.Pruned {
			continue
		}
		p := paretoPoint{cost: c.CostPerHour, latency: float64(c.Measured.TTFTP99) / 1e6, met: c.Outcome == plan.Met}
		if batch {
			p.cost, p.latency = c.CostToFinish, c.Measured.Makespan.Hours()
		}
		if math.IsInf(p.latency, 0) || p.latency > 1e12 {
			continue
		}
		pts = append(pts, p)
	}
	return pts
}

// addFrontAndLimit draws the Pareto front of the points that meet the
// SLO (a cheaper one that misses it is no choice) and the SLO's limit,
// if any, across the costs of pts.
func addFrontAndLimit(p *plot.Plot, pts []paretoPoint, limit float64) error {
	var front plotter.XYs
	var meeting []paretoPoint
	for _, q := range pts {
		if q.met {
			meeting = append(meeting, q)
		}
	}
	for _, q := range paretoFront(meeting) {
		front = append(front, plotter.XY{X: q.cost, Y: math.Max(q.latency, 1e-3)})
	}
	if len(front) > 0 {
		l, err := plotter.NewLine(front)
		if err != nil {
			return err
		}
		p.Add(l)
		p.Legend.Add("Pareto front (meeting the SLO)", l)
	}
	if limit <= 0 {
		return nil
	}
	lo, hi := pts[0].cost, pts[0].cost
	for _, q := range pts {
		lo, hi = math.Min(lo, q.cost), math.Max(hi, q.cost)
	}
	sl, err := plotter.NewLine(plotter.XYs{{X: lo, Y: limit}, {X: hi, Y: limit}})
	if err != nil {
		return err
	}
	sl.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(sl)
	p.Legend.Add("SLO", sl)
	return nil
}
