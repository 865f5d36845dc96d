package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/tokenpace/tokenpace/simulate/trace"
)

// traceFlags choose how a trace file is read and replayed.
type traceFlags struct {
	format  string
	speedup float64
	start   time.Duration
	window  time.Duration
}

// addTraceFlags registers the trace flags on fs.
func addTraceFlags(fs *flag.FlagSet) *traceFlags {
	t := &traceFlags{}
	fs.StringVar(&t.format, "trace-format", "auto", "format of the trace: azure, burstgpt, mooncake, csv, or auto (from its first line)")
	fs.Float64Var(&t.speedup, "speedup", 1, "replay the trace this many times faster (2: twice the rate)")
	fs.DurationVar(&t.start, "window-start", 0, "replay the trace from this far into it, e.g. 10m")
	fs.DurationVar(&t.window, "window", 0, "replay this much of the trace, e.g. 5m (0: to its end)")
	return t
}

// open reads the trace at path, cut to the window and sped up.
func (t *traceFlags) open(path string) (*trace.Trace, error) {
	f, err := trace.ParseFormat(t.format)
	if err != nil {
		return nil, fmt.Errorf("--trace-format: %w", err)
	}
	tr, err := trace.Open(path, f)
	if err != nil {
		return nil, err
	}
	if t.start != 0 || t.window != 0 {
		if tr, err = tr.Window(t.start, t.window); err != nil {
			return nil, err
		}
	}
	if t.speedup != 1 {
		// A speedup that is not positive is Speedup's to refuse: it would
		// stretch the trace past any bound.
		if span := tr.Duration().Seconds() / t.speedup; t.speedup > 0 && span > maxArrivalSpan.Seconds() {
			return nil, fmt.Errorf("--speedup %g stretches the trace's %v to %.3g s, want at most %g s", t.speedup, tr.Duration(), span, maxArrivalSpan.Seconds())
		}
		if tr, err = tr.Speedup(t.speedup); err != nil {
			return nil, fmt.Errorf("--speedup: %w", err)
		}
	}
	return tr, nil
}

// describe says what of the trace is replayed, in one line.
func (t *traceFlags) describe(tr *trace.Trace) string {
	s := fmt.Sprintf("trace %s: %s (%s, over %v at %.3g/s", tr.Name, count(len(tr.Requests), "request"), tr.Format, tr.Duration().Round(time.Millisecond), tr.Rate())
	if t.start != 0 || t.window != 0 {
		s += fmt.Sprintf(", window from %v", t.start)
		if t.window != 0 {
			s += fmt.Sprintf(" for %v", t.window)
		}
	}
	if t.speedup != 1 {
		s += fmt.Sprintf(", sped up %g×", t.speedup)
	}
	if tr.Failed > 0 {
		s += fmt.Sprintf("; %s the traced service failed left out", count(tr.Failed, "request"))
	}
	return s + ")"
}
