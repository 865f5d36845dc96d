package metrics

import (
	"context"

	"github.com/tokenpace/tokenpace"
)

// An Observer runs every observer of this package on each finished request:
// the detectors once, then a Recorder and an OTel observer, which both report
// the detections. Most callers want one Observer per process:
//
//	obs, err := metrics.New()
//	...
//	client := tokenpace.NewClient(openai.NewClient(), tokenpace.WithHooks(obs.Hooks()))
//	...
//	obs.Recorder.Snapshot().WriteTable(os.Stdout)
//
// and, for a Router's circuit breakers, BreakerSettings.OnStateChange set to
// obs.OTel.BreakerStateChanged.
//
// An Observer is safe for concurrent use.
type Observer struct {
	// Recorder holds the in-process statistics.
	Recorder *Recorder
	// OTel emits OpenTelemetry metrics and spans; call its
	// BreakerStateChanged from the circuit breakers.
	OTel *OTel
	// Detector is the detector run on every request; nil when detection is
	// off (WithoutDetection).
	Detector *Detector

	cfg config
}

// New returns an Observer configured by opts; every option of this package
// applies. An error means an OpenTelemetry instrument could not be created;
// the Observer is usable still, without that instrument.
func New(opts ...Option) (*Observer, error) {
	cfg := newConfig(opts)
	det := cfg.detectorFor()
	o, err := newOTel(cfg, nil)
	return &Observer{Recorder: newRecorder(cfg, nil), OTel: o, Detector: det, cfg: cfg}, err
}

// Hooks returns the hooks that feed o: add them to the client's hooks.
func (o *Observer) Hooks() tokenpace.Hooks {
	return tokenpace.Hooks{Done: o.Record}
}

// Record hands the finished request t to every observer. A nil t is ignored.
func (o *Observer) Record(ctx context.Context, t *tokenpace.Timing) {
	if t == nil {
		return
	}
	var buf [2]Detection
	ds := o.Detector.Observe(buf[:0], t)
	o.Recorder.record(t, ds)
	o.OTel.record(ctx, t, ds)
	o.cfg.notify(ctx, ds)
}
