package plan

import (
	"fmt"

	"github.com/tokenpace/tokenpace/simulate"
)

// CalibrationRun is one load a calibration measures: a closed loop of
// Scenario.Concurrency clients sending Scenario.Requests requests, and
// what the run is there to pin down.
type CalibrationRun struct {
	// Scenario is the load.
	Scenario simulate.Scenario
	// Purpose says which constant the run identifies, e.g. "one stream's
	// decode: weights read plus step overhead".
	Purpose string
}

// DesignCalibration returns the runs that identify the constants Calibrate
// fits for d, and two more loads held out of the fit to check it:
//
//   - one stream with a short prompt: the weights' read per step plus the
//     step overhead (the two move this figure alike);
//   - many streams with long contexts, enough that each step reads about
//     twice as many KV bytes as weight bytes: the known KV bytes set the
//     bandwidth share apart from the step overhead. The contexts share a
//     prefix the server's prefix cache holds, so that prefills do not
//     crowd the decode steps (a server without a prefix cache makes this
//     run a prefill run, and the fit says what stays confounded);
//   - one stream with a long prompt: the prefill, which sets the tensor
//     share.
//
// Every run is a closed loop whose clients start together, as bench runs
// it; the shared prefix is in the cache before the run starts (one
// request sends it first). The sizes follow d: the KV-heavy run stays
// within half the KV cache and the model's context. An impossible deployment yields its *simulate.InvalidError.
func DesignCalibration(d simulate.Deployment) (fit, check []CalibrationRun, err error) {
	d, err = d.Resolved()
	if err != nil {
		return nil, nil, err
	}
	const out = 64
	long := 4096
	if d.Model.Context > 0 {
		long = min(long, d.Model.Context/2)
	}
	// Four streams of the long context must fit in half the KV cache.
	long = max(min(long, d.KVCapacityTokens/8-out), 256)
	// Streams whose KV read per step is twice the weights' read.
	perSeq := float64(long+out) * d.Model.KVBytesPerToken(d.KVBits)
	streams := int(2 * d.Model.StreamedBytes(d.Precision, 1) / perSeq)
	streams = min(streams, d.KVCapacityTokens/2/(long+out), d.MaxRunning, 64)
	streams = max(streams, 4)
	fit = []CalibrationRun{
		{simulate.Scenario{PromptTokens: 128, OutputTokens: out, Concurrency: 1, Requests: 3},
			"one stream's decode: weights read plus step overhead"},
		{simulate.Scenario{PromptTokens: long, CachedTokens: long - 64, OutputTokens: out, Concurrency: streams, Requests: 2 * streams},
			fmt.Sprintf("%d streams of %d-token contexts sharing a cached prefix: the KV read sets the bandwidth share apart from the step overhead", streams, long)},
		{simulate.Scenario{PromptTokens: long, OutputTokens: 8, Concurrency: 1, Requests: 2},
			fmt.Sprintf("a %d-token prefill: the tensor share", long)},
	}
	check = []CalibrationRun{
		{simulate.Scenario{PromptTokens: 512, OutputTokens: out, Concurrency: 4, Requests: 8}, "held out: 4 streams of 512-token prompts"},
		{simulate.Scenario{PromptTokens: 1024, OutputTokens: out, Concurrency: 8, Requests: 16}, "held out: 8 streams of 1024-token prompts"},
	}
	return fit, check, nil
}
