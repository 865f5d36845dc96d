package tokenpace_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestOmniRouteKeepaliveRefusalNotCounted: OmniRoute commits a slow
// Responses call to a 200 event stream after its keepalive threshold, so
// a refusal its upstreams give later comes as one flat error event that
// carries their status as status_code (diegosouzapw/OmniRoute
// open-sse/utils/earlyStreamKeepalive.ts, buildResponsesErrorDataLine).
// The caller must get status 400 with the upstream's message, and a
// breaker must not count the request's fault.
func TestOmniRouteKeepaliveRefusalNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "omniroute-responses-keepalive-then-400-frame", http.StatusBadRequest, func(r *tokenpace.Router, model string) error {
			s := r.NewResponseStreaming(context.Background(), respond(model, 64))
			for s.Next() {
			}
			return s.Err()
		})
	})
}

// TestOmniRouteKeepaliveChatRefusalNotCounted: on a chat call slower than
// its keepalive threshold, OmniRoute writes its upstreams' error body as
// one event, as it is, with no status; the type and code it made that
// body with name the status (diegosouzapw/OmniRoute
// open-sse/config/errorConfig.ts, ERROR_TYPES). The caller must get
// status 400 with the upstream's message, and a breaker must not count
// the request's fault.
func TestOmniRouteKeepaliveChatRefusalNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "omniroute-chat-keepalive-chunks-then-error-body", http.StatusBadRequest, chatErr(t))
	})
}

// TestOmniRouteKeepaliveQuotaSpentCounted: OmniRoute writes the type and
// code of its 403, "permission_error" and "insufficient_quota", when every
// account behind the route has spent its quota, a state of the route
// that it reads so itself (diegosouzapw/OmniRoute
// open-sse/config/errorConfig.ts, ERROR_RULES status_403:
// quota_exhausted). Sent after the keepalive threshold, inside the 200
// stream, the route will answer every request alike until the accounts
// are paid for: the caller gets the server's message, and a breaker must
// count it, as it counts OpenAI's 429 insufficient_quota.
func TestOmniRouteKeepaliveQuotaSpentCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantFailureCounted(t, "omniroute-chat-keepalive-chunks-then-quota-body", http.StatusOK, chatErr(t))
	})
}

// TestOmniRouteKeepaliveResponsesQuotaSpentCounted: on a Responses call
// past its keepalive threshold, OmniRoute names its 403 for accounts past
// their quota as status_code in its flat error event
// (diegosouzapw/OmniRoute open-sse/utils/earlyStreamKeepalive.ts,
// buildResponsesErrorDataLine; open-sse/config/errorConfig.ts,
// ERROR_RULES status_403: quota_exhausted). The route answers every
// request alike until the accounts are paid for: the caller gets the
// server's message, and a breaker must count it.
func TestOmniRouteKeepaliveResponsesQuotaSpentCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantFailureCounted(t, "omniroute-responses-keepalive-then-403-frame", http.StatusOK, func(r *tokenpace.Router, model string) error {
			s := r.NewResponseStreaming(context.Background(), respond(model, 64))
			for s.Next() {
			}
			return s.Err()
		})
	})
}

// TestOmniRouteKeepaliveAnswerNamesUpstreamResponse: past its keepalive
// threshold OmniRoute sends response.in_progress events of a response
// "resp_keepalive_omniroute" that no server stores, then the upstream's
// own stream, its response.created first
// (testdata/conformance/omniroute-responses-keepalive-then-answer.jsonl).
// Timing must name the upstream's response, the one to give as
// previous_response_id on the next turn, not the keepalive's.
func TestOmniRouteKeepaliveAnswerNamesUpstreamResponse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx := loadConformance(t)["omniroute-responses-keepalive-then-answer"]
		url, hc := serve(t, replay(fx.recording))
		c := tokenpace.NewClient(openaiClient(url, hc))
		got := readResponseStream(c.NewResponseStreaming(context.Background(), respond(fx.Request.Body.Model, 256)))
		if got.err != nil || got.text != "Hello! How can I help?" {
			t.Fatalf("err %v, text %q, want the whole answer", got.err, got.text)
		}
		if id, model := got.tm.ResponseID, got.tm.ResponseModel; id != "resp_68c1f0a2b7e4819f" || model != "gpt-5.4-2026-03-05" {
			t.Errorf("Timing.ResponseID, ResponseModel = %q, %q, want the upstream's %q, %q", id, model, "resp_68c1f0a2b7e4819f", "gpt-5.4-2026-03-05")
		}
	})
}
