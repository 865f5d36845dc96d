package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate"
)

// inFlight is a transport that counts the requests in flight at once.
type inFlight struct {
	next      http.RoundTripper
	mu        sync.Mutex
	now, peak int
}

func (c *inFlight) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.now++
	c.peak = max(c.peak, c.now)
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.now--
		c.mu.Unlock()
	}()
	return c.next.RoundTrip(r)
}

// The warm-up of an open loop with no cap in flight sends at most
// maxWarmupClients at once: it sent all of them at once, a goroutine and
// a stream each, so that --rate 5 --warmup 200000 took 14.6 GB and,
// stopped by SIGTERM, 199 s to exit.
func TestWarmupOfAnUncappedRunIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sim, err := simulate.ServeInMemory(simulate.WithModel("sim", &simulate.Fixed{TTFT: 10 * time.Millisecond, ITL: time.Millisecond}))
		if err != nil {
			t.Fatal(err)
		}
		defer sim.Close()
		count := &inFlight{next: sim.Client().Transport}
		oc := openai.NewClient(option.WithBaseURL(sim.BaseURL()), option.WithHTTPClient(&http.Client{Transport: count}), option.WithAPIKey("simulator"), option.WithMaxRetries(0))
		g := &loadGen{client: tokenpace.NewClient(oc), params: newPromptMaker("sim", 64, 8, 1), recorder: metrics.NewRecorder(),
			requests: 1, concurrency: 0, rate: 5, warmup: 1000, timeout: time.Minute, progress: noProgress{}}
		res := g.run(t.Context())
		if res.snap.Completed != 1 {
			t.Fatalf("completed = %d, want 1", res.snap.Completed)
		}
		if count.peak > maxWarmupClients {
			t.Errorf("a warm-up of 1000 requests with no cap had %d in flight at once, want at most %d", count.peak, maxWarmupClients)
		}
	})
}

// prompts is a transport that keeps the text of every chat request sent.
type prompts struct {
	next http.RoundTripper
	mu   sync.Mutex
	sent []string
}

func (p *prompts) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil && strings.HasSuffix(r.URL.Path, "/chat/completions") {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		var req struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(b, &req); err != nil {
			return nil, err
		}
		var text []string
		for _, m := range req.Messages {
			text = append(text, m.Content)
		}
		p.mu.Lock()
		p.sent = append(p.sent, strings.Join(text, "|"))
		p.mu.Unlock()
	}
	return p.next.RoundTrip(r)
}

// Warm-up requests are prompts of their own: they were the run's first
// prompts, sent again measured, so that a server's prefix cache (vLLM's,
// SGLang's, llama.cpp's) served the first --warmup measured requests from
// cache; and a trace shorter than --warmup panicked ("index out of range
// [48] with length 40").
func TestWarmupSendsPromptsOfItsOwn(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want int // distinct prompts sent
	}{
		{"closed loop", []string{"--requests", "4", "--concurrency", "2", "--warmup", "4"}, 8},
		{"trace shorter than the warm-up", []string{"--trace", traceSample("azure_conv_sample.csv"), "--speedup", "100", "--warmup", "50"}, 90},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sim, err := simulate.ServeInMemory(simulate.WithModel("sim", &simulate.Fixed{TTFT: 10 * time.Millisecond, ITL: time.Millisecond}))
				if err != nil {
					t.Fatal(err)
				}
				defer sim.Close()
				seen := &prompts{next: sim.Client().Transport}
				oc := openai.NewClient(option.WithBaseURL(sim.BaseURL()), option.WithHTTPClient(&http.Client{Transport: seen}), option.WithAPIKey("simulator"), option.WithMaxRetries(0))
				f, code := parseBenchFlags(tc.args, io.Discard)
				if f == nil {
					t.Fatalf("parseBenchFlags(%q) = exit %d", tc.args, code)
				}
				g, err := f.newLoad()
				if err != nil {
					t.Fatal(err)
				}
				g.target(&benchTarget{client: tokenpace.NewClient(oc), model: "sim"}, f)
				g.run(t.Context())
				distinct := map[string]bool{}
				for _, p := range seen.sent {
					distinct[p] = true
				}
				if len(seen.sent) != tc.want || len(distinct) != tc.want {
					t.Errorf("bench %q sent %d prompts, %d distinct; want %d, all distinct", tc.args, len(seen.sent), len(distinct), tc.want)
				}
			})
		})
	}
}
