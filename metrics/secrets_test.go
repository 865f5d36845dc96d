package metrics_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestAPIKeyNeverReported: an API key given to openai-go, as an option
// or through OPENAI_API_KEY, appears in no error text, log line, metric
// attribute, span attribute or event, nor in the Recorder's snapshot,
// even when a server echoes it back in its error message. The calls
// cover a clean stream, a Router's fallback after a budget breach, a
// server error and a 401 that quotes the key.
func TestAPIKeyNeverReported(t *testing.T) {
	const key = "sk-proj-secret-0123456789abcdef"
	for _, via := range []string{"option", "env"} {
		t.Run(via, func(t *testing.T) {
			var oopts []option.RequestOption
			if via == "env" {
				t.Setenv("OPENAI_API_KEY", key)
			} else {
				t.Setenv("OPENAI_API_KEY", "")
				oopts = append(oopts, option.WithAPIKey(key))
			}
			sim := simulate.StartLoopback(t,
				simulate.WithModel("slow", &simulate.Fixed{TTFT: 2 * time.Second}),
				simulate.WithModel("m", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}))
			echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
				w.Write([]byte(`{"error":{"message":"Incorrect API key provided: ` + got + `","type":"invalid_request_error","code":"invalid_api_key"}}`))
			}))
			t.Cleanup(echo.Close)

			reader := sdkmetric.NewManualReader()
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
			spans := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
			defer func() { _ = mp.Shutdown(context.Background()); _ = tp.Shutdown(context.Background()) }()
			obs, err := metrics.New(metrics.WithMeterProvider(mp), metrics.WithTracerProvider(tp))
			if err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			rec := metrics.NewRecorder()
			hooks := tokenpace.WithHooks(obs.Hooks(), rec.Hooks(),
				metrics.LogHooks(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
			oc := openai.NewClient(append(oopts, option.WithBaseURL(sim.URL), option.WithHTTPClient(sim.Client), option.WithMaxRetries(0))...)
			c := tokenpace.NewClient(oc, hooks)
			r, err := tokenpace.NewRouter(c, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 50 * time.Millisecond}},
				tokenpace.Route{Name: "slow", Model: "slow"},
				tokenpace.Route{Name: "fast", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}

			var texts []string
			run := func(s *tokenpace.Stream[openai.ChatCompletionChunk], wantErr bool) {
				t.Helper()
				for s.Next() {
				}
				_ = s.Close()
				if err := s.Err(); (err != nil) != wantErr {
					t.Errorf("Err() = %v, want an error %v", err, wantErr)
				} else if err != nil {
					texts = append(texts, err.Error())
				}
				for _, b := range s.Timing().Breaches {
					texts = append(texts, b.Error())
				}
			}
			params := chatParams("m", 4)
			run(c.NewStreaming(context.Background(), params), false)
			run(r.NewStreaming(context.Background(), params), false)
			run(c.NewStreaming(context.Background(), params, option.WithHeader(simulate.FaultHeader, "500")), true)
			run(c.NewStreaming(context.Background(), params, option.WithBaseURL(echo.URL+"/v1/"), option.WithHTTPClient(echo.Client())), true)
			for _, want := range []string{"ttft budget exceeded", "500 Internal Server Error", "401 Unauthorized"} {
				if !strings.Contains(strings.Join(texts, "\n"), want) {
					t.Errorf("errors = %q, want %q among them", texts, want)
				}
			}

			var rm metricdata.ResourceMetrics
			if err := reader.Collect(context.Background(), &rm); err != nil {
				t.Fatal(err)
			}
			snap, err := json.Marshal(rec.Snapshot())
			if err != nil {
				t.Fatal(err)
			}
			var table bytes.Buffer
			if err := rec.Snapshot().WriteTable(&table); err != nil {
				t.Fatal(err)
			}
			where := map[string]string{
				"error texts":       strings.Join(texts, "\n"),
				"logs":              logs.String(),
				"metric attributes": metricAttributes(rm),
				"spans":             spanText(spans.Ended()),
				"snapshot JSON":     string(snap),
				"snapshot table":    table.String(),
			}
			if where["spans"] == "" || where["metric attributes"] == "" || logs.Len() == 0 {
				t.Fatalf("nothing recorded: spans %q, metric attributes %q, logs %q", where["spans"], where["metric attributes"], logs.String())
			}
			for name, text := range where {
				if strings.Contains(text, key) || strings.Contains(text, "0123456789abcdef") {
					t.Errorf("%s hold the API key: %q", name, text)
				}
			}
		})
	}
}

// chatParams returns streaming chat params for model with max_tokens n.
func chatParams(model string, n int) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:     model,
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		MaxTokens: openai.Int(int64(n)),
	}
}

// metricAttributes returns the attributes of every data point of rm, one
// set a line.
func metricAttributes(rm metricdata.ResourceMetrics) string {
	var b strings.Builder
	add := func(s attribute.Set) {
		b.WriteString(s.Encoded(attribute.DefaultEncoder()))
		b.WriteByte('\n')
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					add(p.Attributes)
				}
			case metricdata.Sum[float64]:
				for _, p := range d.DataPoints {
					add(p.Attributes)
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					add(p.Attributes)
				}
			case metricdata.Gauge[float64]:
				for _, p := range d.DataPoints {
					add(p.Attributes)
				}
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					add(p.Attributes)
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					add(p.Attributes)
				}
			}
		}
	}
	return b.String()
}

// spanText returns the name, status, attributes and events of every span.
func spanText(spans []sdktrace.ReadOnlySpan) string {
	var b strings.Builder
	for _, s := range spans {
		attrs := attribute.NewSet(s.Attributes()...)
		b.WriteString(s.Name() + " " + s.Status().Description + " " + attrs.Encoded(attribute.DefaultEncoder()) + "\n")
		for _, e := range s.Events() {
			attrs := attribute.NewSet(e.Attributes...)
			b.WriteString("  " + e.Name + " " + attrs.Encoded(attribute.DefaultEncoder()) + "\n")
		}
	}
	return b.String()
}
