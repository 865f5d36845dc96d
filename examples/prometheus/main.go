// Command prometheus serves tokenpace's OpenTelemetry metrics in the
// Prometheus text format: the GenAI client histograms (operation duration,
// time to first chunk, time per output chunk, token usage) and tokenpace's
// own instruments. It sends a batch of requests to an embedded simulator,
// prints what the in-process Recorder saw, and serves /metrics until
// interrupted.
//
// Usage:
//
//	go run ./examples/prometheus -addr localhost:9464 -n 50 -c 8
//	curl localhost:9464/metrics
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/tokenpace/tokenpace/metrics"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "prometheus:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("prometheus", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "localhost:9464", "address to serve /metrics on")
	n := fs.Int("n", 50, "requests to send")
	c := fs.Int("c", 8, "requests in flight at once")
	if err := fs.Parse(args); err != nil {
		return err
	}
	b, err := startBackend()
	if err != nil {
		return err
	}
	defer func() { _ = b.Close() }()
	tel, err := newTelemetry(metrics.WithServer("", b.BaseURL()))
	if err != nil {
		return err
	}
	defer func() { _ = tel.Shutdown(context.Background()) }()
	if err := drive(ctx, b, tel.Observer.Hooks(), *n, *c); err != nil {
		return err
	}
	if err := tel.Observer.Recorder.Snapshot().WriteTable(stderr); err != nil {
		return err
	}

	srv := &http.Server{Addr: *addr, Handler: tel.Handler, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	fmt.Fprintf(stderr, "serving http://%s/metrics\n", *addr)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
