package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tokenpace/tokenpace"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// scrape fetches /metrics over HTTP.
func scrape(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics = %d, %v", resp.StatusCode, err)
	}
	return string(body)
}

func TestScrapeFindsHistograms(t *testing.T) {
	tel, err := newTelemetry()
	if err != nil {
		t.Fatalf("newTelemetry: %v", err)
	}
	defer func() { _ = tel.Shutdown(context.Background()) }()

	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tm := &tokenpace.Timing{
		Target: "gpu-a", Model: "llama", ResponseModel: "llama", Stream: true,
		Start: start, Sent: start, PromptTokens: 100, OutputTokens: 3, UsageReported: true,
		Chunks: []time.Time{start.Add(300 * time.Millisecond), start.Add(320 * time.Millisecond), start.Add(340 * time.Millisecond)},
		End:    start.Add(350 * time.Millisecond),
	}
	tel.Observer.Hooks().Done(context.Background(), tm)

	body := scrape(t, tel.Handler)
	for _, want := range []string{
		`gen_ai_client_operation_duration_seconds_bucket{`,
		`gen_ai_client_operation_time_to_first_chunk_seconds_bucket{`,
		`gen_ai_client_operation_time_per_output_chunk_seconds_count{`,
		`gen_ai_client_token_usage_bucket{`,
		`tokenpace_client_time_per_output_token_seconds_bucket{`,
		`tokenpace_client_requests_total{`,
		`le="0.32"`,
		`gen_ai_request_model="llama"`,
		`gen_ai_token_type="output"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("scrape lacks %s", want)
		}
	}
	// Two gaps between three chunks.
	if !strings.Contains(body, "gen_ai_client_operation_time_per_output_chunk_seconds_count{") ||
		!containsLine(body, "gen_ai_client_operation_time_per_output_chunk_seconds_count{", " 2") {
		t.Errorf("time_per_output_chunk count is not 2:\n%s", grep(body, "time_per_output_chunk_seconds_count"))
	}
}

func containsLine(body, prefix, suffix string) bool {
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, prefix) && strings.HasSuffix(l, suffix) {
			return true
		}
	}
	return false
}

func grep(body, s string) string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestWorkloadScrape sends requests to the in-process simulator through
// the client and finds them in the scraped histograms.
func TestWorkloadScrape(t *testing.T) {
	tel, err := newTelemetry()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tel.Shutdown(context.Background()) }()
	b, err := startBackend()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	if err := drive(context.Background(), b, tel.Observer.Hooks(), 6, 3); err != nil {
		t.Fatalf("drive: %v", err)
	}
	body := scrape(t, tel.Handler)
	if !containsLine(body, "gen_ai_client_operation_time_to_first_chunk_seconds_count{", " 6") {
		t.Errorf("time_to_first_chunk count is not 6:\n%s", grep(body, "time_to_first_chunk_seconds_count"))
	}
	if s := tel.Observer.Recorder.Snapshot(); s.Completed != 6 || s.OutputTokens != 6*32 {
		t.Errorf("Snapshot() completed %d, tokens %d, want 6 and %d", s.Completed, s.OutputTokens, 6*32)
	}
}
