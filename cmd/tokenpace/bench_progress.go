package main

import (
	"io"

	"github.com/schollz/progressbar/v3"
)

// progress reports finished requests.
type progress interface {
	add()
	finish()
}

// noProgress shows nothing.
type noProgress struct{}

func (noProgress) add()    {}
func (noProgress) finish() {}

// barProgress draws a progress bar.
type barProgress struct{ bar *progressbar.ProgressBar }

func newProgressBar(n int, w io.Writer) barProgress {
	return barProgress{progressbar.NewOptions(n,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("requests"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionClearOnFinish(),
	)}
}

func (p barProgress) add()    { _ = p.bar.Add(1) }
func (p barProgress) finish() { _ = p.bar.Finish() }
