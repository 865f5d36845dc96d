package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// TestBenchSendsFreshPrompts checks that two bench runs against a server
// send prompts of their own, unless --seed asks for the same ones: a
// server keeps what it served in its prompt cache, and a run that sent
// an earlier run's prompts again would measure cache hits, not prefills.
func TestBenchSendsFreshPrompts(t *testing.T) {
	sim := simulate.StartLoopback(t, simulate.WithModel("sim", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}))
	u, err := url.Parse(sim.URL)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = ""
	proxy := httputil.NewSingleHostReverseProxy(u)
	var mu sync.Mutex
	var runs []map[string]bool
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var p struct{ Messages []struct{ Content string } }
		if json.Unmarshal(body, &p) == nil && len(p.Messages) > 0 {
			requests.Add(1)
			mu.Lock()
			runs[len(runs)-1][p.Messages[len(p.Messages)-1].Content] = true
			mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()
	var seed uint64 // the last run's prompt_seed
	run := func(args ...string) map[string]bool {
		t.Helper()
		mu.Lock()
		runs = append(runs, map[string]bool{})
		mu.Unlock()
		args = append([]string{"--json", "--base-url", srv.URL + "/v1", "--model", "sim", "--requests", "6", "--concurrency", "2", "--max-tokens", "2"}, args...)
		code, stdout, stderr := bench(t, t.Context(), args...)
		if code != 0 {
			t.Fatalf("bench %v: exit %d: %s", args, code, stderr)
		}
		var rep struct {
			PromptSeed uint64 `json:"prompt_seed"`
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		seed = rep.PromptSeed
		return runs[len(runs)-1]
	}
	shared := func(a, b map[string]bool) int {
		n := 0
		for m := range a {
			if b[m] {
				n++
			}
		}
		return n
	}
	first := run()
	firstSeed := seed
	second := run()
	if len(first) != 6 || shared(first, second) != 0 {
		t.Errorf("two runs without --seed: %d prompts, %d of them sent again; want 6 and none", len(first), shared(first, second))
	}
	if again := run("--seed", strconv.FormatUint(firstSeed, 10)); shared(first, again) != 6 {
		t.Errorf("a run with --seed the first run's prompt_seed (%d) shares %d of its 6 prompts, want all", firstSeed, shared(first, again))
	}
	seeded, again := run("--seed", "7"), run("--seed", "7")
	if shared(seeded, again) != 6 {
		t.Errorf("two runs with --seed 7 share %d of 6 prompts, want all", shared(seeded, again))
	}
	// A rate search's steps: each with prompts of its own.
	var sent int
	mu.Lock()
	runs = append(runs, map[string]bool{})
	mu.Unlock()
	before := requests.Load()
	if code, _, stderr := bench(t, t.Context(), "--base-url", srv.URL+"/v1", "--model", "sim", "--max-tokens", "2", "--find-max-rate",
		"--rate", "200", "--step-requests", "100", "--step-duration", "100ms", "--max-steps", "2", "--slo-ttft", "1s"); code != 0 {
		t.Fatalf("bench --find-max-rate: exit %d: %s", code, stderr)
	}
	sent = int(requests.Load() - before)
	if distinct := len(runs[len(runs)-1]); sent < 200 || distinct != sent {
		t.Errorf("rate search sent %d requests with %d distinct prompts, want at least 200, all distinct", sent, distinct)
	}
}
