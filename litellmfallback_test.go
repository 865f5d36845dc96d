package tokenpace_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// secondCall answers every Responses request with one whole call of
// append_ledger under the response id "resp_second", and its usage.
var secondCall = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = w.Write([]byte(`data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_second","object":"response","model":"second","status":"in_progress","output":[]}}` + "\n\n" +
		`data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"fc_second","type":"function_call","status":"in_progress","name":"append_ledger","call_id":"call_second","arguments":""}}` + "\n\n" +
		`data: {"type":"response.function_call_arguments.delta","sequence_number":2,"output_index":0,"item_id":"fc_second","delta":"{\"line\":\"run\"}"}` + "\n\n" +
		`data: {"type":"response.output_item.done","sequence_number":3,"output_index":0,"item":{"id":"fc_second","type":"function_call","status":"completed","name":"append_ledger","call_id":"call_second","arguments":"{\"line\":\"run\"}"}}` + "\n\n" +
		`data: {"type":"response.completed","sequence_number":4,"response":{"id":"resp_second","object":"response","model":"second","status":"completed","output":[{"id":"fc_second","type":"function_call","status":"completed","name":"append_ledger","call_id":"call_second","arguments":"{\"line\":\"run\"}"}],"usage":{"input_tokens":17,"output_tokens":6,"total_tokens":23}}}` + "\n\n"))
})

// litellmFallback serves the LiteLLM fixture name at its model and
// secondCall at "second", and returns a Client and a Router with
// Continue whose routes are the two.
func litellmFallback(t *testing.T, name string) (fx conformance, c *tokenpace.Client, r *tokenpace.Router) {
	t.Helper()
	fx = loadConformance(t)[name]
	url, hc := serve(t, byModel(map[string]http.Handler{fx.Request.Body.Model: replay(fx.recording), "second": secondCall}))
	c = tokenpace.NewClient(openaiClient(url, hc))
	r, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true},
		tokenpace.Route{Name: "first", Model: fx.Request.Body.Model}, route("second"))
	if err != nil {
		t.Fatal(err)
	}
	return fx, c, r
}

// TestLiteLLMFallbackBeforeOutputNamesItsAnswer: LiteLLM's proxy, whose
// Responses upstream failed before any output, forwards its fallback's
// lifecycle after the primary's response.created
// (testdata/conformance/litellm-responses-midstream-fallback-before-output.jsonl).
// The answer is the fallback's: Timing names its response (the id to
// give as previous_response_id, the one response.completed names) and
// its model, not the primary's, which failed and holds no output.
func TestLiteLLMFallbackBeforeOutputNamesItsAnswer(t *testing.T) {
	for name, id := range map[string]string{
		"litellm-responses-midstream-fallback-before-output": "resp_Bbpzp1A40yP_",
		// A call announced by the primary, nothing of it sent: no output
		// (the openai SDK reads the one call too).
		"litellm-responses-midstream-fallback-announced-only": "resp_RVqeQcoZG-Np",
	} {
		t.Run(name, func(t *testing.T) { beforeOutputNamesItsAnswer(t, name, id) })
	}
}

// beforeOutputNamesItsAnswer checks that the LiteLLM fixture name, whose
// fallback's lifecycle began before any output, reads whole as the
// fallback's answer, its response id and model the fallback's.
func beforeOutputNamesItsAnswer(t *testing.T, name, id string) {
	synctest.Test(t, func(t *testing.T) {
		fx, c, r := litellmFallback(t, name)
		p := respond(fx.Request.Body.Model, 64)
		for _, tt := range []struct {
			name string
			got  read
		}{
			{"Client", readResponseStream(c.NewResponseStreaming(context.Background(), p))},
			{"Router", readResponseStream(r.NewResponseStreaming(context.Background(), p))},
		} {
			tm := tt.got.tm
			if tt.got.err != nil || len(tt.got.toolCalls) != 1 {
				t.Fatalf("%s: err %v, %d calls, want a whole answer of one call", tt.name, tt.got.err, len(tt.got.toolCalls))
			}
			if tm.ResponseID != id || tm.ResponseModel != "fallback-tool" {
				t.Errorf("%s: Timing.ResponseID, ResponseModel = %q, %q, want the fallback's %q, %q",
					tt.name, tm.ResponseID, tm.ResponseModel, id, "fallback-tool")
			}
		}
	})
}

// TestLiteLLMFallbackCallRestarted: LiteLLM's proxy, whose Responses
// upstream failed after a whole call, forwards its fallback's lifecycle,
// the call made again
// (testdata/conformance/litellm-responses-midstream-fallback-call-replayed.jsonl).
// A Client's caller holds the first call once and an error; a Router's
// restarts at its next route and says so: the caller, dropping what it
// built when Restarted is true, holds one call, the next route's, with
// its prompt tokens and its response id.
func TestLiteLLMFallbackCallRestarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx, c, r := litellmFallback(t, "litellm-responses-midstream-fallback-call-replayed")
		p := respond(fx.Request.Body.Model, 64)

		got := readResponseStream(c.NewResponseStreaming(context.Background(), p))
		checkKind(t, got.err, tokenpace.KindTruncated)
		if len(got.toolCalls) != 1 || got.toolCalls[0].Function.Arguments != `{"line":"run"}` {
			t.Errorf("Client: calls %v, want the primary's one call", got.toolCalls)
		}

		s := r.NewResponseStreaming(context.Background(), p)
		var calls, restarts int
		for s.Next() {
			if s.Restarted() {
				restarts++
				calls = 0
			}
			if ev := s.Current(); ev.Type == "response.output_item.done" && ev.Item.Type == "function_call" {
				calls++
			}
		}
		s.Close()
		tm := s.Timing()
		if s.Err() != nil || restarts != 1 || calls != 1 {
			t.Fatalf("Router: err %v, %d restarts, %d calls after the last, want nil, 1, 1", s.Err(), restarts, calls)
		}
		// The output tokens are all the caller read (see Timing): the
		// dropped call's one output event and the next route's 6.
		if tm.ResponseID != "resp_second" || tm.PromptTokens != 17 || tm.OutputTokens != 7 {
			t.Errorf("Router: Timing.ResponseID %q, tokens %d and %d, want the next route's resp_second, 17 and 1+6",
				tm.ResponseID, tm.PromptTokens, tm.OutputTokens)
		}
		if o := outcomes(tm); len(o) != 2 || tm.Attempts[1].Kind != tokenpace.AttemptRestart {
			t.Errorf("Router: attempts %v, want the first failed and a restart", tm.Attempts)
		}
	})
}
