// Command prometheus serves tokenpace's OpenTelemetry metrics in the
// Prometheus text format: the GenAI client histograms (operation duration,
// time to first chunk, time per output chunk, token usage) and tokenpace's
// own instruments.
//
// Usage:
//
//	go run ./examples/prometheus -addr :9464
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
	if err := fs.Parse(args); err != nil {
		return err
	}
	tel, err := newTelemetry()
	if err != nil {
		return err
	}
	defer func() { _ = tel.Shutdown(context.Background()) }()

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
