package main

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// svgSeries is one series of an svgChart: a line through its points, or
// dots when scatter is set.
type svgSeries struct {
	name    string
	color   string
	pts     [][2]float64
	scatter bool
	dash    bool
}

// svgChart is a small line or scatter chart drawn as inline SVG, so that a
// report needs no script library and no network to show it.
type svgChart struct {
	id, title, xlabel, ylabel string
	series                    []svgSeries
}

// Chart geometry, in SVG user units.
const (
	svgW, svgH                 = 640.0, 320.0
	svgLeft, svgRight          = 64.0, 16.0
	svgTop, svgBottom          = 34.0, 46.0
	svgPlotW, svgPlotH         = svgW - svgLeft - svgRight, svgH - svgTop - svgBottom
	maxSVGPoints               = 2000
	svgBlue, svgOrange, svgRed = "#1f77b4", "#ff7f0e", "#d62728"
	svgGreen, svgPurple        = "#2ca02c", "#9467bd"
)

// svg renders the chart; a chart with no point says so in its frame.
func (c svgChart) svg() string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %g" role="img" aria-label="%s">`, svgW, svgH, html.EscapeString(c.title))
	fmt.Fprintf(&b, `<text x="%g" y="20" class="title">%s</text>`, svgLeft, html.EscapeString(c.title))
	x0, x1, y0, y1, ok := c.bounds()
	if !ok {
		fmt.Fprintf(&b, `<text x="%g" y="%g" class="empty">no data</text></svg>`, svgW/2, svgH/2)
		return b.String()
	}
	sx := func(v float64) float64 { return svgLeft + (v-x0)/(x1-x0)*svgPlotW }
	sy := func(v float64) float64 { return svgTop + svgPlotH - (v-y0)/(y1-y0)*svgPlotH }
	c.axes(&b, x0, x1, y0, y1, sx, sy)
	for i, s := range c.series {
		c.draw(&b, s, sx, sy)
		fmt.Fprintf(&b, `<rect x="%g" y="%g" width="10" height="10" fill="%s"/><text x="%g" y="%g" class="legend">%s</text>`,
			svgW-svgRight-150, svgTop+4+float64(i)*16, s.color, svgW-svgRight-136, svgTop+13+float64(i)*16, html.EscapeString(s.name))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// bounds returns the data's range, widened to nice ticks; y from 0.
func (c svgChart) bounds() (x0, x1, y0, y1 float64, ok bool) {
	x0, x1, y1 = math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, s := range c.series {
		for _, p := range s.pts {
			x0, x1, y1 = min(x0, p[0]), max(x1, p[0]), max(y1, p[1])
			ok = true
		}
	}
	if !ok {
		return 0, 0, 0, 0, false
	}
	x0 = min(x0, 0)
	if x1 <= x0 {
		x1 = x0 + 1
	}
	if y1 <= 0 {
		y1 = 1
	}
	return x0, niceCeil(x1), 0, niceCeil(y1), true
}

// axes draws the frame, five ticks on each axis and the labels.
func (c svgChart) axes(b *strings.Builder, x0, x1, y0, y1 float64, sx, sy func(float64) float64) {
	fmt.Fprintf(b, `<rect x="%g" y="%g" width="%g" height="%g" class="frame"/>`, svgLeft, svgTop, svgPlotW, svgPlotH)
	for i := 0; i <= 5; i++ {
		xv, yv := x0+(x1-x0)*float64(i)/5, y0+(y1-y0)*float64(i)/5
		fmt.Fprintf(b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" class="grid"/><text x="%.1f" y="%g" class="tick" text-anchor="middle">%s</text>`,
			sx(xv), svgTop, sx(xv), svgTop+svgPlotH, sx(xv), svgTop+svgPlotH+14, tickText(xv))
		fmt.Fprintf(b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" class="grid"/><text x="%g" y="%.1f" class="tick" text-anchor="end">%s</text>`,
			svgLeft, sy(yv), svgLeft+svgPlotW, sy(yv), svgLeft-4, sy(yv)+4, tickText(yv))
	}
	fmt.Fprintf(b, `<text x="%g" y="%g" class="label" text-anchor="middle">%s</text>`, svgLeft+svgPlotW/2, svgH-8, html.EscapeString(c.xlabel))
	fmt.Fprintf(b, `<text x="14" y="%g" class="label" text-anchor="middle" transform="rotate(-90 14 %g)">%s</text>`,
		svgTop+svgPlotH/2, svgTop+svgPlotH/2, html.EscapeString(c.ylabel))
}

// draw draws one series, thinned to at most maxSVGPoints points.
func (c svgChart) draw(b *strings.Builder, s svgSeries, sx, sy func(float64) float64) {
	step := max(1, (len(s.pts)+maxSVGPoints-1)/maxSVGPoints)
	if s.scatter {
		fmt.Fprintf(b, `<g fill="%s" fill-opacity="0.55" class="series">`, s.color)
		for i := 0; i < len(s.pts); i += step {
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="2"/>`, sx(s.pts[i][0]), sy(s.pts[i][1]))
		}
		b.WriteString(`</g>`)
		return
	}
	dash := ""
	if s.dash {
		dash = ` stroke-dasharray="5 4"`
	}
	fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="1.6"%s class="series" points="`, s.color, dash)
	for i := 0; i < len(s.pts); i += step {
		fmt.Fprintf(b, "%.1f,%.1f ", sx(s.pts[i][0]), sy(s.pts[i][1]))
	}
	if n := len(s.pts); n > 0 && (n-1)%step != 0 {
		fmt.Fprintf(b, "%.1f,%.1f", sx(s.pts[n-1][0]), sy(s.pts[n-1][1]))
	}
	b.WriteString(`"/>`)
	if len(s.pts) <= 40 { // few points: mark each
		for _, p := range s.pts {
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`, sx(p[0]), sy(p[1]), s.color)
		}
	}
}

// niceCeil rounds v up to 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten.
func niceCeil(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if v <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// tickText formats a tick value briefly.
func tickText(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 1:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", v), "0"), ".")
	}
	return fmt.Sprintf("%.2g", v)
}
