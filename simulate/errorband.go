package simulate

import "fmt"

// ErrorBand is how far the latency model's predictions for a class of
// deployments fell from published measurements it was not fitted on: the
// absolute relative error of each measurement under parameters refitted
// without that measurement's source (leave-one-source-out cross-validation
// over the single measurements of testdata/fidelity.json, load curves
// apart; fidelity_test.go recomputes it and fails
// when the figures here are stale).
type ErrorBand struct {
	// Class names the runtime class and figure, e.g. "vllm decode".
	Class string
	// Rows is the number of published measurements in the class.
	Rows int
	// Sources is the number of sources those measurements come from.
	Sources int
	// Median and P90 are the median and 90th-percentile absolute relative
	// errors, e.g. 0.12 for 12 %.
	Median, P90 float64
}

// Figure kinds of an error band.
const (
	bandFirstToken = iota // TTFT and prefill rate
	bandDecode            // TPOT, decode rate, E2E, aggregate rate
)

// bandKind is the figure kind of m.
func bandKind(m Metric) int {
	if m == MetricTTFT || m == MetricPrefillTPS {
		return bandFirstToken
	}
	return bandDecode
}

// errorBands are indexed by runtime class (runtimeClass, then 3 for all
// classes together) and figure kind.
var errorBands = [4][2]ErrorBand{
	{{"vllm first token", 30, 2, 0.101, 0.217}, {"vllm decode", 47, 10, 0.107, 0.236}},
	{{"llama.cpp first token", 17, 6, 0.126, 0.301}, {"llama.cpp decode", 23, 5, 0.114, 0.313}},
	{{"eager first token", 12, 3, 0.341, 0.42}, {"eager decode", 15, 2, 0.122, 0.364}},
	{{"all first token", 59, 11, 0.126, 0.367}, {"all decode", 85, 17, 0.114, 0.288}},
}

// minBandRows is the fewest measurements a class band needs; a smaller
// class reports the band of all classes.
const minBandRows = 4

// minBandSources is the fewest sources a class band needs: the error of
// one source left out says how far that source is from the others, not
// how far the class is from the model.
const minBandSources = 2

// archRows is the number of single measurements in the fit on a device of
// each Arch (index: Arch). An architecture with none gets its efficiency
// from its prior alone.
var archRows = [6]int{25, 58, 26, 14, 15, 6}

// unseenArchBands are the error bands of a deployment on an architecture
// none of the fitted measurements is on (index: figure kind): the error
// of each measurement under parameters refitted without every measurement
// of its device's architecture (leave-one-architecture-out
// cross-validation), so that its class efficiencies come from the priors
// as an unmeasured architecture's do.
var unseenArchBands = [2]ErrorBand{{"first token", 59, 11, 0.16, 0.523}, {"decode", 85, 17, 0.124, 0.318}}

// heldOutBands are the errors of the shipped model on the published
// measurements held out of every fit, less those of a fitted source's
// method (index: figure kind): what a measurement the fit never met, often
// of an engine build older or newer than the fitted ones, came out at.
// fidelity_test.go recomputes them and fails when they are stale.
var heldOutBands = [2]ErrorBand{{"first token, held out of every fit", 47, 16, 0.174, 0.868}, {"decode, held out of every fit", 74, 22, 0.106, 0.436}}

// HeldOutBands returns the error bands of the first token (TTFT) and of
// decode on published measurements that no fit and no cross-validation
// fold ever saw, from sources none of the fitted ones shares a method
// with. They are wider than ErrorBands' because the engine builds behind
// them differ from the fitted ones: the same device and model run up to
// twice as fast from one build of an engine to another.
func HeldOutBands() (firstToken, decode ErrorBand) {
	return heldOutBands[bandFirstToken], heldOutBands[bandDecode]
}

// ErrorBands returns the cross-validated error bands of d's class for the
// first token (TTFT) and for decode (TPOT, TPS, E2E). A class with fewer
// than a few published measurements of a figure, or all from one source,
// reports the band of all classes for it. On an architecture with no
// published measurement in the fit (archRows; every Arch of the catalog
// has some today) the bands are those of an architecture left out, and
// say so.
func ErrorBands(d Deployment) (firstToken, decode ErrorBand) {
	d = d.withIdentity()
	if arch := min(max(int(d.GPU.Arch), 0), len(archRows)-1); archRows[arch] == 0 {
		first, dec := unseenArchBands[bandFirstToken], unseenArchBands[bandDecode]
		first.Class = unmeasured(first.Class, d.GPU.Arch)
		dec.Class = unmeasured(dec.Class, d.GPU.Arch)
		return first, dec
	}
	rc := runtimeClass(d.Runtime)
	return bandOf(&errorBands, rc, bandFirstToken), bandOf(&errorBands, rc, bandDecode)
}

// bandOf is bands' band of class rc and figure kind, or that of all
// classes when rc's has too few measurements or sources.
func bandOf(bands *[4][2]ErrorBand, rc, kind int) ErrorBand {
	if b := bands[rc][kind]; b.Rows >= minBandRows && b.Sources >= minBandSources {
		return b
	}
	return bands[3][kind]
}

// unmeasured names the band of figure on an architecture no fitted
// measurement is on, e.g. "decode, no cdna device measured: architectures
// left out in turn".
func unmeasured(figure string, a Arch) string {
	return fmt.Sprintf("%s, no %s device measured: architectures left out in turn", figure, a)
}
