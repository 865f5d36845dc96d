package tokenpace_test

import (
	"context"
	"testing"

	"github.com/openai/openai-go/v3/responses"
)

// llamaCppWholeCut is a whole /v1/responses answer of llama.cpp's
// llama-server (recorded live, August 2026 build) to max_output_tokens
// 16: its 16 output tokens are all it was allowed, yet it says
// "completed", with no incomplete_details.
const llamaCppWholeCut = `{"completed_at":1796617495,"created_at":1796617495,"id":"resp_ye2nlVFDEFUufFtTHh8xSaRAQBb6Os9m","model":"tiny","object":"response","output":[{"content":[{"type":"output_text","annotations":[],"logprobs":[],"text":"serialize Hauptftware Britannica disput powers"}],"id":"msg_FQ27cIq365D6wSyAaa5cAw4E8nqV2wef","role":"assistant","status":"completed","type":"message"}],"status":"completed","usage":{"input_tokens":34,"output_tokens":16,"total_tokens":50,"input_tokens_details":{"cached_tokens":33}}}`

// A whole Responses answer cut at max_output_tokens that its server
// calls completed reaches the caller as the API reports a cut one:
// incomplete, for max_output_tokens, its text kept; through the Client
// and through a Router.
func TestNewResponseCutCalledCompleted(t *testing.T) {
	c, r := oneRoute(t)
	calls := map[string]func() (*responses.Response, error){
		"Client": func() (*responses.Response, error) {
			return c.NewResponse(context.Background(), respond("m", 16), replaced(llamaCppWholeCut))
		},
		"Router": func() (*responses.Response, error) {
			return r.NewResponse(context.Background(), respond("m", 16), replaced(llamaCppWholeCut))
		},
	}
	for name, call := range calls {
		res, err := call()
		if err != nil || res == nil {
			t.Fatalf("%s.NewResponse() = %v, %v; want the cut response", name, res, err)
		}
		if res.Status != responses.ResponseStatusIncomplete || res.IncompleteDetails.Reason != "max_output_tokens" {
			t.Errorf("%s: status %q, reason %q; want incomplete, max_output_tokens", name, res.Status, res.IncompleteDetails.Reason)
		}
		if got := res.OutputText(); got != "serialize Hauptftware Britannica disput powers" {
			t.Errorf("%s: text %q, want the server's", name, got)
		}
		if got := res.Output[0].Status; got != "incomplete" {
			t.Errorf("%s: message status %q, want incomplete", name, got)
		}
	}
}

// A whole answer that stopped under its limit stays completed.
func TestNewResponseUnderLimitStaysCompleted(t *testing.T) {
	c, _ := oneRoute(t)
	res, err := c.NewResponse(context.Background(), respond("m", 17), replaced(llamaCppWholeCut))
	if err != nil || res == nil {
		t.Fatalf("NewResponse() = %v, %v", res, err)
	}
	if res.Status != responses.ResponseStatusCompleted || res.IncompleteDetails.Reason != "" {
		t.Errorf("status %q, reason %q; want completed, no reason", res.Status, res.IncompleteDetails.Reason)
	}
}
