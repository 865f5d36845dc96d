package simulate_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace/simulate"
)

// The HTTP server serves a Cluster like an Engine; chat requests that share
// their messages but the last share a prefix, so the affinity router sends
// them to one replica and its prefix cache serves all but the first.
func TestServerServesACluster(t *testing.T) {
	system := strings.Repeat("You are a helpful voice assistant for a bank. ", 60)
	perHit := map[simulate.Routing]int64{} // cached tokens per hit
	for _, tc := range []struct {
		routing simulate.Routing
		hits    int // requests whose prompt prefix came from the cache
	}{
		{simulate.RoundRobin, 9}, // 12 requests over 3 replicas: each misses once
		{simulate.PrefixAffinity, 11},
	} {
		synctest.Test(t, func(t *testing.T) {
			c := newCluster(t, 3, tc.routing)
			ts := simulate.StartInMemory(t, simulate.WithModel("m", c))
			for i := range 12 {
				body := fmt.Sprintf(`{"model":"m","max_tokens":4,"messages":[{"role":"system","content":%q},{"role":"user","content":"question %d"}]}`, system, i)
				if ex := post(t, ts, "/v1/chat/completions", body, nil); ex.status != 200 {
					t.Fatalf("request %d: status %d, body %s", i, ex.status, ex.body)
				}
			}
			st, ok := ts.Server.Stats("m")
			if !ok {
				t.Fatal("no stats for the served cluster")
			}
			ts.Server.Close() // its driver owns c until it exits
			sum := c.Replicas()[0].Stats().PrefixHits + c.Replicas()[1].Stats().PrefixHits + c.Replicas()[2].Stats().PrefixHits
			if sum != st.PrefixHits {
				t.Errorf("server Stats().PrefixHits = %d, want the replicas' sum %d", st.PrefixHits, sum)
			}
			served := 0
			for _, e := range c.Replicas() {
				if e.Stats().PromptTokens > 0 {
					served++
				}
			}
			if want := map[simulate.Routing]int{simulate.RoundRobin: 3, simulate.PrefixAffinity: 1}[tc.routing]; served != want {
				t.Errorf("%v: replicas that served = %d, want %d", tc.routing, served, want)
			}
			if st.PrefixHits == 0 || st.PrefixHits%int64(tc.hits) != 0 {
				t.Errorf("%v: cached prompt tokens = %d, want a multiple of %d hits", tc.routing, st.PrefixHits, tc.hits)
			}
			perHit[tc.routing] = st.PrefixHits / int64(tc.hits)
		})
	}
	if a, b := perHit[simulate.RoundRobin], perHit[simulate.PrefixAffinity]; a != b {
		t.Errorf("cached tokens per hit: round-robin %d, affinity %d; want the same prefix, 9 vs 11 hits", a, b)
	}
}

// A conversation's next turn goes where the turn before it was served, so
// that the replica's cache holds its history, though another replica is
// less loaded then.
func TestAffinityKeepsAConversationOnItsReplica(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 3, simulate.PrefixAffinity)
		ts := simulate.StartInMemory(t, simulate.WithModel("m", c))
		// A long request holds replica 0, so the first turn goes to 1.
		done := make(chan exchange)
		go func() {
			done <- post(t, ts, "/v1/chat/completions", `{"model":"m","max_tokens":3000,"messages":[{"role":"user","content":"Write at length."}]}`, nil)
		}()
		synctest.Wait()
		first := strings.Repeat("Tell me about latency. ", 200)
		ex := post(t, ts, "/v1/chat/completions", fmt.Sprintf(`{"model":"m","max_tokens":8,"messages":[{"role":"user","content":%q}]}`, first), nil)
		if ex.status != 200 {
			t.Fatalf("first turn: status %d, body %s", ex.status, ex.body)
		}
		var resp struct {
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(ex.body), &resp); err != nil || len(resp.Choices) != 1 {
			t.Fatalf("first turn: %v, body %s", err, ex.body)
		}
		if long := <-done; long.status != 200 {
			t.Fatalf("long request: status %d", long.status)
		}
		// Every replica is idle now: least-loaded would pick replica 0.
		body := fmt.Sprintf(`{"model":"m","max_tokens":8,"messages":[{"role":"user","content":%q},{"role":"assistant","content":%q},{"role":"user","content":"And throughput?"}]}`,
			first, resp.Choices[0].Message.Content)
		if ex := post(t, ts, "/v1/chat/completions", body, nil); ex.status != 200 {
			t.Fatalf("next turn: status %d, body %s", ex.status, ex.body)
		}
		ts.Server.Close() // its driver owns c until it exits
		var hits [3]int64
		for i, e := range c.Replicas() {
			hits[i] = e.Stats().PrefixHits
		}
		if hits[1] == 0 || hits[0] != 0 || hits[2] != 0 {
			t.Errorf("cached prompt tokens per replica = %v, want the next turn's history from replica 1's cache only", hits)
		}
	})
}
