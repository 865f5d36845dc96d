package tokenpace_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// Perplexity's Agent API counts the prompt tokens it read from the cache
// as input_tokens_details.cache_read_input_tokens, within input_tokens,
// and may send no cached_tokens beside them
// (perplexityai/perplexity-py types/responses_usage.py): a whole
// response's Timing counts them as cached, as a streamed one's does
// (testdata/conformance/perplexity-agent-cache-read-input-tokens.jsonl).
func TestPerplexityAgentCacheReadWhole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const body = `{"id":"resp_1","object":"response","created_at":1791200000,"status":"completed","model":"anthropic/claude-sonnet-4-6","error":null,` +
			`"output":[{"id":"msg_1","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Latency budgets keep agents on time.","annotations":[]}]}],` +
			`"usage":{"cost":{"currency":"USD","input_cost":0.00015,"output_cost":0.00075,"cache_read_cost":0.00024,"cache_creation_cost":0.00056,"total_cost":0.0017},` +
			`"input_tokens":1000,"input_tokens_details":{"cache_creation_input_tokens":150,"cache_read_input_tokens":800},"output_tokens":50,"total_tokens":1050}}`
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, body)
		}))
		var tm *tokenpace.Timing
		_, err := tokenpace.NewClient(openaiClient(url, hc)).NewResponse(context.Background(),
			respond("anthropic/claude-sonnet-4-6", 1024), tokenpace.WithTimingInto(&tm))
		if err != nil {
			t.Fatal(err)
		}
		if tm == nil {
			t.Fatal("NewResponse() gave no Timing")
		}
		if tm.PromptTokens != 1000 || tm.CachedTokens != 800 || tm.OutputTokens != 50 {
			t.Errorf("NewResponse() Timing counts (%d prompt, %d cached, %d output), want (1000, 800, 50)", tm.PromptTokens, tm.CachedTokens, tm.OutputTokens)
		}
	})
}
