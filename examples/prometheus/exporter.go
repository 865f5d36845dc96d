package main

import (
	"context"
	"errors"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/tokenpace/tokenpace/metrics"
)

// telemetry is the wiring this example shows: tokenpace's observers over an
// OpenTelemetry meter provider whose reader is the Prometheus exporter.
type telemetry struct {
	// Observer gets the client's hooks.
	Observer *metrics.Observer
	// Handler serves the Prometheus text format on /metrics.
	Handler http.Handler

	provider *sdkmetric.MeterProvider
}

// newTelemetry registers the exporter on a registry of its own (use
// prometheus.DefaultRegisterer to add to an existing /metrics) and returns
// the observer and the handler. opts configure the observer.
func newTelemetry(opts ...metrics.Option) (*telemetry, error) {
	reg := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, err
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	obs, err := metrics.New(append([]metrics.Option{metrics.WithMeterProvider(mp)}, opts...)...)
	if err != nil {
		return nil, errors.Join(err, mp.Shutdown(context.Background()))
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return &telemetry{Observer: obs, Handler: mux, provider: mp}, nil
}

// Shutdown stops the meter provider.
func (t *telemetry) Shutdown(ctx context.Context) error {
	return errors.Join(t.Observer.OTel.Shutdown(), t.provider.Shutdown(ctx))
}
