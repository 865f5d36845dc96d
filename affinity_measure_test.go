package tokenpace_test

import (
	"context"
	"fmt"
	"math/rand/v2"
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

// sessionResult is one row of the affinity table.
type sessionResult struct {
	name      string
	ttft      metrics.Dist
	later     []time.Duration // TTFTs of the turns after each session's first, sorted
	cached    float64         // share of prompt tokens served from a prefix cache
	moves     int             // turns answered by another replica than the turn before
	turns     int
	fallbacks int // calls with more than one attempt (a skip or a fallback)
	failed    int // calls that ended with an error
}

// Workload of the affinity measurement.
const (
	affSessions  = 48
	affTurns     = 10
	affDocTokens = 4000
	affKVTokens  = 120_000          // each replica's KV cache: room for ~half the documents
	affSpread    = 30 * time.Second // sessions start uniformly over this
	affThink     = 8 * time.Second  // mean think time between turns
)

// runSessions runs affSessions concurrent sessions of affTurns turns each
// through a Router over two replicas of one model, each an engine with its
// own prefix cache and a KV cache too small for every session's document.
// Every turn sends the session's document (a system message of
// affDocTokens tokens) and a new question, so that its prefix is the
// session's; think times between turns are exponential, mean 8 s, and sessions start over 30 s. Replica
// "r1" is first in the Router's order and admits 4 requests a second; the
// rest spill to "r2".
func runSessions(t *testing.T, name string, aff tokenpace.Affinity) sessionResult {
	var res sessionResult
	synctest.Test(t, func(t *testing.T) {
		var routes []tokenpace.Route
		for i := 1; i <= 2; i++ {
			eng, err := simulate.NewEngine(simulate.Deployment{KVCapacityTokens: affKVTokens})
			if err != nil {
				t.Fatal(err)
			}
			ts := simulate.StartInMemory(t, simulate.WithModel("llama", eng), simulate.WithSeed(uint64(i)))
			oc := openaiClient(ts.URL, ts.Client)
			rt := tokenpace.Route{Name: fmt.Sprintf("r%d", i), Client: &oc}
			if i == 1 {
				rt.Limit = tokenpace.Limit{RPS: 4, Burst: 4}
			}
			routes = append(routes, rt)
		}
		oc := openaiClient("http://unused.invalid/v1", nil)
		r, err := tokenpace.NewRouter(tokenpace.NewClient(oc),
			tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 2 * time.Second}, Affinity: aff}, routes...)
		if err != nil {
			t.Fatal(err)
		}
		var (
			mu       sync.Mutex
			ttfts    []time.Duration
			later    []time.Duration
			prompt   int
			cached   int
			moves    int
			fallback int
			failed   int
			wg       sync.WaitGroup
		)
		for s := range affSessions {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(s), 7))
				doc := strings.Repeat(fmt.Sprintf("s%02d ", s), affDocTokens) // 4 bytes a token
				time.Sleep(time.Duration(rng.Float64() * float64(affSpread)))
				last := ""
				for turn := range affTurns {
					params := openai.ChatCompletionNewParams{
						Model: "llama",
						Messages: []openai.ChatCompletionMessageParamUnion{
							openai.SystemMessage(doc),
							openai.UserMessage(fmt.Sprintf("Question %d about the document?", turn)),
						},
						MaxTokens: openai.Int(48),
					}
					st := r.NewStreaming(context.Background(), params, option.WithMaxRetries(0))
					readAll(t, st)
					tm := st.Timing()
					mu.Lock()
					if st.Err() != nil {
						failed++
						mu.Unlock()
						last = ""
						time.Sleep(time.Duration(rng.ExpFloat64() * float64(affThink)))
						continue
					}
					ttfts = append(ttfts, tm.TTFT())
					if turn > 0 {
						later = append(later, tm.TTFT())
					}
					prompt += tm.PromptTokens
					cached += tm.CachedTokens
					if last != "" && tm.Target != last {
						moves++
					}
					if len(tm.Attempts) > 1 {
						fallback++
					}
					mu.Unlock()
					last = tm.Target
					time.Sleep(time.Duration(rng.ExpFloat64() * float64(affThink)))
				}
			})
		}
		wg.Wait()
		metrics.DistOf(later) // sorts later
		res = sessionResult{name: name, ttft: metrics.DistOf(ttfts), later: later, cached: float64(cached) / float64(max(prompt, 1)),
			moves: moves, turns: len(ttfts), fallbacks: fallback, failed: failed}
	})
	return res
}

// TestAffinitySessions measures multi-turn sessions' TTFT with and without
// warm-cache affinity on two replicas, each with its own prefix cache.
// Run:
//
//	go test -run TestAffinitySessions -v .
func TestAffinitySessions(t *testing.T) {
	rows := []sessionResult{
		runSessions(t, "Router order (no affinity)", tokenpace.Affinity{}),
		runSessions(t, "affinity by the prompt's first 1024 tokens", tokenpace.Affinity{PrefixTokens: 1024}),
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| policy (%d sessions × %d turns, %d-token document) | p50 TTFT | p99 TTFT | later turns: p90 TTFT | later turns: p99 TTFT | prompt tokens cached | turns on another replica | calls with more than one attempt | calls failed |\n|---|---|---|---|---|---|---|---|---|\n",
		affSessions, affTurns, affDocTokens)
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %v | %v | %v | %v | %.1f%% | %d of %d | %d | %d |\n", r.name, r.ttft.P50.Round(time.Millisecond), r.ttft.P99.Round(time.Millisecond),
			rank(r.later, 0.9).Round(time.Millisecond), rank(r.later, 0.99).Round(time.Millisecond), 100*r.cached, r.moves, r.turns-affSessions, r.fallbacks, r.failed)
	}
	t.Logf("warm-cache affinity:\n%s", b.String())
	none, aff := rows[0], rows[1]
	if aff.cached <= none.cached {
		t.Errorf("cached share with affinity %.3f, want above %.3f without", aff.cached, none.cached)
	}
	// The later turns' p90 is where affinity's cache hits show; their p99
	// is set by turns queued behind cold first turns on the replica the
	// sessions stay with, and which way it leans follows the latency
	// model's prefill cost (see BENCHMARKS.md).
	if a, n := rank(aff.later, 0.9), rank(none.later, 0.9); a >= n {
		t.Errorf("later turns' p90 TTFT with affinity %v, want below %v without", a, n)
	}
}
