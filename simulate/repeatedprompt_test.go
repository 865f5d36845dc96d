package simulate_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace/simulate"
)

// repeatedPrompt is a prompt long enough that its prefill dominates a
// one-token answer: 9200 bytes.
var repeatedPrompt = strings.Repeat("Tell me about latency. ", 400)

// promptUsage reads the prompt and cached token counts of a whole chat,
// completions or Responses answer.
func promptUsage(t *testing.T, ex exchange) (prompt, cached int) {
	t.Helper()
	if ex.status != 200 {
		t.Fatalf("status %d, body %s", ex.status, ex.body)
	}
	var r struct {
		Usage struct {
			PromptTokens  int `json:"prompt_tokens"`
			InputTokens   int `json:"input_tokens"`
			PromptDetails struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
			InputDetails struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"input_tokens_details"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(ex.body), &r); err != nil {
		t.Fatalf("body %s: %v", ex.body, err)
	}
	u := r.Usage
	return u.PromptTokens + u.InputTokens, u.PromptDetails.CachedTokens + u.InputDetails.CachedTokens
}

// The same prompt sent again finds it in the prefix cache, as vLLM's
// automatic prefix cache does: every whole block of the prompt but its
// last token (which is computed again to give the first output token).
// The simulator kept only a prompt's earlier messages, so a one-message
// chat, a completions prompt or a Responses input sent again was
// prefilled anew, with cached_tokens 0.
func TestPrefixCacheServesARepeatedPrompt(t *testing.T) {
	for _, tt := range []struct{ name, path, body string }{
		{"chat", "/v1/chat/completions", fmt.Sprintf(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":%q}]}`, repeatedPrompt)},
		{"chat with a system message", "/v1/chat/completions",
			fmt.Sprintf(`{"model":"m","max_tokens":1,"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":%q}]}`, repeatedPrompt)},
		{"completions", "/v1/completions", fmt.Sprintf(`{"model":"m","max_tokens":1,"prompt":%q}`, repeatedPrompt)},
		{"completions with a suffix", "/v1/completions", fmt.Sprintf(`{"model":"m","max_tokens":1,"prompt":%q,"suffix":"return x"}`, repeatedPrompt)},
		{"responses", "/v1/responses", fmt.Sprintf(`{"model":"m","max_output_tokens":1,"input":%q}`, repeatedPrompt)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ts := simulate.StartInMemory(t, simulate.WithModel("m", serveEngine(t, simulate.Deployment{})))
				cold := post(t, ts, tt.path, tt.body, nil)
				warm := post(t, ts, tt.path, tt.body, nil)
				prompt, cached := promptUsage(t, cold)
				if cached != 0 {
					t.Errorf("first request: cached tokens = %d, want 0", cached)
				}
				if _, cached := promptUsage(t, warm); cached != (prompt-1)/16*16 {
					t.Errorf("the same request again: cached tokens = %d, want %d (the %d-token prompt but its last token, in whole 16-token blocks)",
						cached, (prompt-1)/16*16, prompt)
				}
				if warm.headersAt*5 > cold.headersAt {
					t.Errorf("one-token answer: %v again, %v the first time; want the cached one at least 5× faster", warm.headersAt, cold.headersAt)
				}
			})
		})
	}
}

// A request cut off after its prefill (a stream reset midway, a client
// that gave up, a Router that restarts the call or cancels a hedge's
// loser) leaves its computed blocks in the cache, as vLLM's free does:
// the same prompt sent again finds all of it but its last token there,
// and a Router's Continue (the history, the partial answer, a user
// message) finds the history. The simulator kept a prompt only when its
// request finished, so the try a Router sends after a cut stream
// prefilled the prompt anew.
func TestPrefixCacheKeepsACutRequestsPrompt(t *testing.T) {
	msg := fmt.Sprintf(`{"role":"user","content":%q}`, repeatedPrompt)
	for _, tt := range []struct{ name, again string }{
		{"sent again", fmt.Sprintf(`{"model":"m","max_tokens":1,"messages":[%s]}`, msg)},
		{"continued", fmt.Sprintf(`{"model":"m","max_tokens":1,"messages":[%s,{"role":"assistant","content":"Latency is"},{"role":"user","content":"Go on."}]}`, msg)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ts := simulate.StartInMemory(t, simulate.WithModel("m", serveEngine(t, simulate.Deployment{})))
				cut := post(t, ts, "/v1/chat/completions", fmt.Sprintf(`{"model":"m","stream":true,"max_tokens":200,"messages":[%s]}`, msg),
					map[string]string{simulate.FaultHeader: "reset;after=4"})
				if cut.err == nil {
					t.Fatalf("the reset stream ended cleanly (%d events)", len(cut.events))
				}
				synctest.Wait() // the server has cancelled the cut request
				first, _ := promptUsage(t, post(t, simulate.StartInMemory(t, simulate.WithModel("m", serveEngine(t, simulate.Deployment{}))),
					"/v1/chat/completions", fmt.Sprintf(`{"model":"m","max_tokens":1,"messages":[%s]}`, msg), nil))
				if _, cached := promptUsage(t, post(t, ts, "/v1/chat/completions", tt.again, nil)); cached != (first-1)/16*16 {
					t.Errorf("after the stream was cut: cached tokens = %d, want %d (the first request's %d-token prompt but its last token, in whole 16-token blocks)",
						cached, (first-1)/16*16, first)
				}
			})
		})
	}
}

// A prompt that differs from an earlier one in its last message reuses
// only what they share; the prompt sent again with prefix caching off
// reuses nothing.
func TestPrefixCacheRepeatsOnlyTheSamePrompt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", serveEngine(t, simulate.Deployment{})))
		ask := func(q string) exchange {
			return post(t, ts, "/v1/chat/completions", fmt.Sprintf(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":%q}]}`, q), nil)
		}
		ask(repeatedPrompt)
		if _, cached := promptUsage(t, ask(repeatedPrompt+"And throughput?")); cached != 0 {
			t.Errorf("another one-message prompt: cached tokens = %d, want 0 (the cache keys whole prefixes)", cached)
		}
		off := simulate.StartInMemory(t, simulate.WithModel("m", serveEngine(t, simulate.Deployment{DisablePrefixCaching: true})))
		body := fmt.Sprintf(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":%q}]}`, repeatedPrompt)
		post(t, off, "/v1/chat/completions", body, nil)
		if _, cached := promptUsage(t, post(t, off, "/v1/chat/completions", body, nil)); cached != 0 {
			t.Errorf("prefix caching off: cached tokens = %d, want 0", cached)
		}
	})
}

// Behind the prefix-aware router, the same prompt goes back to the
// replica that served it, whose cache holds it, though another replica is
// less loaded then.
func TestAffinitySendsARepeatedPromptToItsReplica(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 3, simulate.PrefixAffinity)
		ts := simulate.StartInMemory(t, simulate.WithModel("m", c))
		// A long request holds replica 0, so the prompt goes to 1.
		done := make(chan exchange)
		go func() {
			done <- post(t, ts, "/v1/chat/completions", `{"model":"m","max_tokens":3000,"messages":[{"role":"user","content":"Write at length."}]}`, nil)
		}()
		synctest.Wait()
		body := fmt.Sprintf(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":%q}]}`, repeatedPrompt)
		cold := post(t, ts, "/v1/chat/completions", body, nil)
		if long := <-done; long.status != 200 {
			t.Fatalf("long request: status %d", long.status)
		}
		// Every replica is idle now: least-loaded would pick replica 0.
		warm := post(t, ts, "/v1/chat/completions", body, nil)
		prompt, _ := promptUsage(t, cold)
		if _, cached := promptUsage(t, warm); cached != (prompt-1)/16*16 {
			t.Errorf("the same prompt again: cached tokens = %d, want %d", cached, (prompt-1)/16*16)
		}
		ts.Server.Close() // its driver owns c until it exits
		var hits [3]int64
		for i, e := range c.Replicas() {
			hits[i] = e.Stats().PrefixHits
		}
		if hits != [3]int64{0, int64((prompt - 1) / 16 * 16), 0} {
			t.Errorf("cached prompt tokens per replica = %v, want the prompt from replica 1's cache only", hits)
		}
	})
}
