package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace/examples/internal/endpoint"
	"github.com/tokenpace/tokenpace/simulate"
)

// start serves cfg's simulator on the bubble's virtual clock.
func start(t *testing.T, cfg config) endpoint.Endpoint {
	t.Helper()
	opts, err := simOptions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := simulate.StartInMemory(t, opts...)
	return endpoint.Endpoint{BaseURL: ts.URL, HTTP: ts.Client, APIKey: "x"}
}

func TestBatchThroughputGrowsWithConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := config{model: "llama-3.1-8b", docs: 150, stages: []int{1, 8, 32}, perStage: 4,
			docTokens: 64, maxTokens: 32, deadline: 2 * time.Second, seed: 1}
		var out bytes.Buffer
		res, err := run(t.Context(), &out, start(t, cfg), cfg)
		if err != nil {
			t.Fatalf("run: %v\n%s", err, out.String())
		}
		wantDocs := []int{4, 32, 114}
		if len(res.stages) != len(wantDocs) {
			t.Fatalf("%d stages, want %d:\n%s", len(res.stages), len(wantDocs), out.String())
		}
		for i, st := range res.stages {
			if st.docs != wantDocs[i] || st.snap.Completed != int64(wantDocs[i]) {
				t.Errorf("stage %d: docs %d, completed %d, want %d", i, st.docs, st.snap.Completed, wantDocs[i])
			}
			if i > 0 {
				prev := res.stages[i-1].snap.OutputThroughput
				if got := st.snap.OutputThroughput; got <= 1.5*prev {
					t.Errorf("tokens/s at %d workers = %.0f, want well above %.0f at %d: decode steps batch the streams",
						st.workers, got, prev, res.stages[i-1].workers)
				}
			}
		}
		tot := res.total
		if tot.Requests != 150 || tot.Completed != 150 || tot.Failed != 0 {
			t.Errorf("requests, completed, failed = %d, %d, %d, want 150, 150, 0", tot.Requests, tot.Completed, tot.Failed)
		}
		if tot.OutputTokens != 150*32 {
			t.Errorf("output tokens = %d, want %d", tot.OutputTokens, 150*32)
		}
		if tot.Good > tot.Completed {
			t.Errorf("good = %d, more than completed %d", tot.Good, tot.Completed)
		}
		for _, want := range []string{"workers", "docs/s", "tokens/s", "goodput", "150 documents in"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, out.String())
			}
		}
		if strings.Contains(out.String(), "no token usage") {
			t.Errorf("a note that tokens are chunks, from a server that reports usage:\n%s", out.String())
		}
	})
}

func TestBatchRateLimit(t *testing.T) {
	tests := []struct {
		name    string
		rps     float64
		minWall time.Duration
		maxWall time.Duration
	}{
		// 60 documents, a burst of 20: the other 40 wait for 2 s of tokens.
		{"20 per second", 20, 2 * time.Second, time.Hour},
		{"no limit", 0, 0, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := config{model: "llama-3.1-8b", docs: 60, stages: []int{32}, perStage: 1, rps: tt.rps,
					docTokens: 64, maxTokens: 8, deadline: 10 * time.Second, seed: 1}
				var out bytes.Buffer
				res, err := run(t.Context(), &out, start(t, cfg), cfg)
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				if res.wall < tt.minWall || res.wall > tt.maxWall {
					t.Errorf("60 documents at %g req/s took %v, want between %v and %v", tt.rps, res.wall, tt.minWall, tt.maxWall)
				}
				if res.total.Completed != 60 {
					t.Errorf("completed = %d, want 60", res.total.Completed)
				}
			})
		})
	}
}

// TestBatchSaysWhyDocumentsFailed checks that failed documents are
// counted by their error: a stream the server ends with an error event
// (llama.cpp's parse error) apart from an error status.
func TestBatchSaysWhyDocumentsFailed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := config{model: "llama-3.1-8b", docs: 12, stages: []int{4}, perStage: 3,
			docTokens: 64, maxTokens: 32, deadline: 2 * time.Second, seed: 1}
		opts, err := simOptions(cfg)
		if err != nil {
			t.Fatal(err)
		}
		faults := simulate.Faults{Script: func(i uint64) simulate.Fault {
			switch i {
			case 1, 5, 9:
				return simulate.Fault{Kind: simulate.FaultErrorEvent, After: 3}
			case 2:
				return simulate.Fault{Kind: simulate.FaultUnavailable}
			}
			return simulate.Fault{}
		}}
		ts := simulate.StartInMemory(t, append(opts, simulate.WithFaults(faults))...)
		var out bytes.Buffer
		res, err := run(t.Context(), &out, endpoint.Endpoint{BaseURL: ts.URL, HTTP: ts.Client, APIKey: "x"}, cfg)
		if err != nil {
			t.Fatalf("run: %v\n%s", err, out.String())
		}
		if res.total.Failed != 4 {
			t.Errorf("failed = %d, want 4\n%s", res.total.Failed, out.String())
		}
		if !strings.Contains(out.String(), "failed by error: error_event 3, 503 1\n") {
			t.Errorf("output does not count the failures by error:\n%s", out.String())
		}
	})
}

// TestBatchSaysTokensAreChunks: against a server that reports no usage and
// sends several tokens a chunk (as KoboldCpp does), the tokens/s figures
// are chunk counts, and the run says so; against the simulator, which
// reports usage, it says nothing of the kind.
func TestBatchSaysTokensAreChunks(t *testing.T) {
	stream := `data: {"id":"koboldcpp","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"finish_reason":"null","delta":{"role":"assistant","content":"several tokens"}}]}` + "\n\n" +
		`data: {"id":"koboldcpp","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"finish_reason":"length","delta":{"role":"assistant","content":" in two chunks"}}]}` + "\n\ndata: [DONE]"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, stream)
	}))
	defer srv.Close()
	cfg := config{model: "m", docs: 4, stages: []int{2}, perStage: 2, docTokens: 16, maxTokens: 8, deadline: 2 * time.Second, seed: 1}
	var out bytes.Buffer
	if _, err := run(t.Context(), &out, endpoint.Endpoint{BaseURL: srv.URL + "/v1", HTTP: srv.Client(), APIKey: "x"}, cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "no token usage for 4 of 4 documents") {
		t.Errorf("no word that the tokens are chunks:\n%s", out.String())
	}
}

// TestBatchFailsWhenEveryDocumentFailed: a run in which no document
// completed returns an error naming the failures (the command exits 1);
// one with some failures (TestBatchSaysWhyDocumentsFailed) does not.
func TestBatchFailsWhenEveryDocumentFailed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := config{model: "llama-3.1-8b", docs: 6, stages: []int{2}, perStage: 3,
			docTokens: 64, maxTokens: 32, deadline: 2 * time.Second, seed: 1}
		opts, err := simOptions(cfg)
		if err != nil {
			t.Fatal(err)
		}
		faults := simulate.Faults{Script: func(uint64) simulate.Fault { return simulate.Fault{Kind: simulate.FaultUnavailable} }}
		ts := simulate.StartInMemory(t, append(opts, simulate.WithFaults(faults))...)
		var out bytes.Buffer
		res, err := run(t.Context(), &out, endpoint.Endpoint{BaseURL: ts.URL, HTTP: ts.Client, APIKey: "x"}, cfg)
		if err == nil || !strings.Contains(err.Error(), "all 6 documents failed") || res.total.Completed != 0 {
			t.Errorf("run = %v (completed %d), want an error saying all 6 documents failed\n%s", err, res.total.Completed, out.String())
		}
		// The stage's row gives no TTFT or TPOT, which no document had.
		if row := regexp.MustCompile(`(?m)^ +2 +6 .*$`).FindString(out.String()); strings.Count(row, " - ") != 3 || strings.Contains(row, "ms") {
			t.Errorf("stage row %q, want a dash for TTFT p50, p99 and TPOT p50\n%s", row, out.String())
		}
	})
}

// TestBatchInterruptedCountsNoFailures interrupts a run (Ctrl-C) while
// documents are in flight: they are said to be abandoned, not counted as
// failures of the server, and the documents done before stay measured.
func TestBatchInterruptedCountsNoFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := config{model: "llama-3.1-8b", docs: 12, stages: []int{4}, perStage: 3,
			docTokens: 64, maxTokens: 32, deadline: 2 * time.Second, seed: 1}
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(300*time.Millisecond, cancel)
		var out bytes.Buffer
		res, err := run(ctx, &out, start(t, cfg), cfg)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("run = %v, want the cancellation", err)
		}
		if res.total.Failed != 0 || res.total.Completed == 0 || res.abandoned == 0 {
			t.Errorf("completed %d, failed %d, abandoned %d; want some completed, none failed, some abandoned\n%s",
				res.total.Completed, res.total.Failed, res.abandoned, out.String())
		}
		if want := fmt.Sprintf("interrupted: %d documents in flight abandoned", res.abandoned); !strings.Contains(out.String(), want) || strings.Contains(out.String(), "failed by error") {
			t.Errorf("output lacks %q, or counts failures:\n%s", want, out.String())
		}
	})
}
