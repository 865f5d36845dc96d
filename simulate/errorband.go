package simulate

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
	{{"vllm first token", 30, 2, 0.06, 0.189}, {"vllm decode", 35, 9, 0.1, 0.229}},
	{{"llama.cpp first token", 13, 5, 0.126, 0.217}, {"llama.cpp decode", 22, 4, 0.087, 0.331}},
	{{"eager first token", 12, 3, 0.334, 0.437}, {"eager decode", 6, 1, 0.186, 0.369}},
	{{"all first token", 55, 10, 0.126, 0.367}, {"all decode", 63, 14, 0.102, 0.301}},
}

// minBandRows is the fewest measurements a class band needs; a smaller
// class reports the band of all classes.
const minBandRows = 4

// minBandSources is the fewest sources a class band needs: the error of
// one source left out says how far that source is from the others, not
// how far the class is from the model.
const minBandSources = 2

// ErrorBands returns the cross-validated error bands of d's class for the
// first token (TTFT) and for decode (TPOT, TPS, E2E). A class with fewer
// than a few published measurements of a figure, or all from one source,
// reports the band of all classes for it.
func ErrorBands(d Deployment) (firstToken, decode ErrorBand) {
	rc := runtimeClass(d.withIdentity().Runtime)
	pick := func(kind int) ErrorBand {
		if b := errorBands[rc][kind]; b.Rows >= minBandRows && b.Sources >= minBandSources {
			return b
		}
		return errorBands[3][kind]
	}
	return pick(bandFirstToken), pick(bandDecode)
}
