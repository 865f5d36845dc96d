package tokenpace_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
)

// A whole response whose answer is a tool search the caller runs (a
// tool_search_call item executed by the client, no text) is an answer: a
// Router hands it over from its first route, not another route's text. A
// search the server ran is not: with nothing after it, the answer is empty.
func TestWholeResponseClientToolSearch(t *testing.T) {
	for _, tc := range []struct {
		execution string
		want      string // the response's id
		attempts  int
	}{
		{"client", "r1", 1},
		{"server", "r2", 2},
	} {
		t.Run(tc.execution, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, byModel(map[string]http.Handler{
					"search": jsonAnswer(`{"id":"r1","object":"response","status":"completed","model":"m","output":[` +
						`{"type":"tool_search_call","id":"ts","call_id":"c","execution":"` + tc.execution + `","status":"completed","arguments":{"query":"weather"}}],` +
						`"usage":{"input_tokens":12,"output_tokens":9,"total_tokens":21}}`),
					"second": jsonAnswer(`{"id":"r2","object":"response","status":"completed","model":"second","output":[{"type":"message","id":"m","role":"assistant","content":[{"type":"output_text","text":"` + strings.TrimSpace(extra) + `","annotations":[]}]}]}`),
				}))
				r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tokenpace.Policy{}, route("search"), route("second"))
				if err != nil {
					t.Fatal(err)
				}
				var tm *tokenpace.Timing
				res, err := r.NewResponse(context.Background(), responses.ResponseNewParams{Model: "search", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("x")}}, tokenpace.WithTimingInto(&tm))
				id := ""
				if res != nil {
					id = res.ID
				}
				if err != nil || id != tc.want || len(tm.Attempts) != tc.attempts {
					t.Errorf("Router.NewResponse() = %q, %v, %d attempts; want %s in %d", id, err, len(tm.Attempts), tc.want, tc.attempts)
				}
			})
		})
	}
}
