package metrics

import (
	"context"
	"log/slog"
	"net/url"
	"strconv"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// An Option configures a Recorder, an OTel observer or an Observer built by
// New. Options that do not concern the type being built are ignored, so one
// list of options can configure all three. A nil Option is ignored.
type Option interface {
	apply(*config)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// config is what the options set. Its zero value, completed by
// newConfig, gives the documented defaults.
type config struct {
	meterProvider  metric.MeterProvider
	tracerProvider trace.TracerProvider
	inferenceNames bool
	noOperation    bool
	provider       string
	servers        map[string]server

	slo    SLO
	window time.Duration

	detect    DetectorConfig
	noDetect  bool
	onDetect  []func(context.Context, Detection)
	logger    *slog.Logger
	detector  *Detector
	hasDetect bool
}

type server struct {
	address string
	port    int
}

func newConfig(opts []Option) config {
	c := config{provider: "openai", window: 10 * time.Second}
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	if c.meterProvider == nil {
		c.meterProvider = otel.GetMeterProvider()
	}
	if c.tracerProvider == nil {
		c.tracerProvider = otel.GetTracerProvider()
	}
	if c.window <= 0 {
		c.window = 10 * time.Second
	}
	return c
}

// WithMeterProvider sets the MeterProvider the OTel observer creates its
// instruments from. The default (also for nil) is the global provider,
// otel.GetMeterProvider().
func WithMeterProvider(mp metric.MeterProvider) Option {
	return optionFunc(func(c *config) { c.meterProvider = mp })
}

// WithTracerProvider sets the TracerProvider the OTel observer creates spans
// with. The default (also for nil) is the global provider,
// otel.GetTracerProvider().
func WithTracerProvider(tp trace.TracerProvider) Option {
	return optionFunc(func(c *config) { c.tracerProvider = tp })
}

// WithInferenceNames makes the OTel observer emit the GenAI client metrics
// under the newer gen_ai.client.inference.* names as well as the
// gen_ai.client.operation.* names of semantic conventions v1.41.0. Combine
// it with WithoutOperationNames to emit only the newer names.
func WithInferenceNames() Option {
	return optionFunc(func(c *config) { c.inferenceNames = true })
}

// WithoutOperationNames stops the OTel observer from emitting the
// gen_ai.client.operation.* metrics. It has an effect only together with
// WithInferenceNames, so that the duration and chunk metrics are never
// dropped altogether.
func WithoutOperationNames() Option {
	return optionFunc(func(c *config) { c.noOperation = true })
}

// WithProviderName sets the gen_ai.provider.name attribute, one of the
// well-known values of genaiconv.ProviderNameAttr or another low-cardinality
// name. The default is "openai", the API every target speaks.
func WithProviderName(name string) Option {
	return optionFunc(func(c *config) {
		if name != "" {
			c.provider = name
		}
	})
}

// WithServer sets the server.address and server.port attributes for the
// requests of target (Timing.Target; "" for calls without a target) from
// baseURL, such as "https://api.openai.com/v1", overriding the
// Timing's ServerAddress and ServerPort, which the attributes otherwise
// come from. WithServer("", baseURL) also serves requests to targets not
// named whose Timing has no ServerAddress. Only the host and port are
// kept: credentials, path and query never enter telemetry. A URL without a
// host is ignored.
func WithServer(target, baseURL string) Option {
	return optionFunc(func(c *config) {
		s, ok := parseServer(baseURL)
		if !ok {
			return
		}
		if c.servers == nil {
			c.servers = make(map[string]server)
		}
		c.servers[target] = s
	})
}

func parseServer(baseURL string) (server, bool) {
	u, err := url.Parse(baseURL)
	if err != nil || u.Hostname() == "" {
		return server{}, false
	}
	s := server{address: u.Hostname()}
	switch p := u.Port(); {
	case p != "":
		s.port, _ = strconv.Atoi(p)
	case u.Scheme == "https":
		s.port = 443
	case u.Scheme == "http":
		s.port = 80
	}
	return s, true
}

// WithSLO sets the service-level objectives a request must meet, besides
// ending without error, to count toward goodput (SLO.Good): the Recorder's
// Good and goodput, and tokenpace.request.good on tokenpace.client.requests.
// The zero SLO adds nothing.
func WithSLO(slo SLO) Option {
	return optionFunc(func(c *config) { c.slo = slo })
}

// WithWindow sets the length of the sliding window over which the Recorder
// reports recent request and output-token throughput. The default (also for
// zero or negative d) is 10 seconds.
func WithWindow(d time.Duration) Option {
	return optionFunc(func(c *config) { c.window = d })
}

// WithDetectorConfig sets the thresholds of the detector that New, Recorder
// and OTel create for themselves.
func WithDetectorConfig(dc DetectorConfig) Option {
	return optionFunc(func(c *config) { c.detect = dc })
}

// WithDetector makes the observer use d instead of a detector of its own, so
// that several observers can share one baseline. A Detector learns from
// every Timing it observes: give a shared detector to only one observer per
// request, or use New, which runs one detector for all its observers.
func WithDetector(d *Detector) Option {
	return optionFunc(func(c *config) { c.detector, c.hasDetect = d, d != nil })
}

// WithoutDetection turns the latency-pathology detectors off.
func WithoutDetection() Option {
	return optionFunc(func(c *config) { c.noDetect = true })
}

// WithDetectionHandler adds f to the functions called with every detection,
// synchronously, on the goroutine that ended the request; f must not block.
func WithDetectionHandler(f func(ctx context.Context, d Detection)) Option {
	return optionFunc(func(c *config) {
		if f != nil {
			c.onDetect = append(c.onDetect, f)
		}
	})
}

// WithLogger logs every detection to l at level Warn.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) { c.logger = l })
}

// detectorFor returns the detector the config asks for: nil when detection
// is off, the shared one when given, else a new one.
func (c *config) detectorFor() *Detector {
	switch {
	case c.noDetect:
		return nil
	case c.hasDetect:
		return c.detector
	}
	return NewDetector(c.detect)
}

// notify hands ds to the handlers and the logger.
func (c *config) notify(ctx context.Context, ds []Detection) {
	for _, d := range ds {
		for _, f := range c.onDetect {
			f(ctx, d)
		}
		if c.logger != nil {
			c.logger.LogAttrs(ctx, slog.LevelWarn, "tokenpace: "+d.Message,
				slog.String("kind", string(d.Kind)),
				slog.String("target", d.Target),
				slog.String("model", d.Model),
				slog.String("hint", d.Hint))
		}
	}
}
