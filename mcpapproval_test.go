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

// A whole response whose answer is a remote MCP tool's call waiting for the
// caller's approval (an mcp_approval_request item, no text) is an answer:
// a Router hands it over from its first route, not another route's text.
func TestWholeResponseMCPApprovalRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		id, attempts, err := routedWholeResponse(t, `{"type":"mcp_list_tools","id":"ml","server_label":"wiki","tools":[{"name":"ask","input_schema":{}}]},`+
			`{"type":"mcp_approval_request","id":"mr","name":"ask","server_label":"wiki","arguments":"{\"q\":\"x\"}"}`)
		if err != nil || id != "r1" || attempts != 1 {
			t.Errorf("Router.NewResponse() = %q, %v, %d attempts; want r1, the approval request, from the first route", id, err, attempts)
		}
	})
}

// routedWholeResponse asks a Router for a whole response: its first route
// answers r1, completed, whose output is the items output holds, its
// second r2, a message. It returns the id the caller got, the attempts
// and the error.
func routedWholeResponse(t *testing.T, output string) (id string, attempts int, err error) {
	t.Helper()
	url, hc := serve(t, byModel(map[string]http.Handler{
		"first": jsonAnswer(`{"id":"r1","object":"response","status":"completed","model":"m","output":[` + output + `],` +
			`"usage":{"input_tokens":12,"output_tokens":9,"total_tokens":21}}`),
		"second": jsonAnswer(`{"id":"r2","object":"response","status":"completed","model":"second","output":[{"type":"message","id":"m","role":"assistant","content":[{"type":"output_text","text":"` + strings.TrimSpace(extra) + `","annotations":[]}]}]}`),
	}))
	r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tokenpace.Policy{}, route("first"), route("second"))
	if err != nil {
		t.Fatal(err)
	}
	var tm *tokenpace.Timing
	res, err := r.NewResponse(context.Background(), responses.ResponseNewParams{Model: "first", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("x")}}, tokenpace.WithTimingInto(&tm))
	if res != nil {
		id = res.ID
	}
	return id, len(tm.Attempts), err
}
