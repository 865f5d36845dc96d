package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestOpencodexIncompleteIsCut: opencodex's /v1/responses ends a stream
// its bridge cut with the text so far, response.incomplete of a reason
// of its own and [DONE]: "upstream_stall_timeout" when its upstream sent
// nothing for the stall budget, "adapter_eof" when the provider
// adapter's events ended with no done or error event
// (lidge-jun/opencodex src/bridge/sse.ts). The caller got a whole answer
// of that finish reason and a nil error, and a Router with Continue kept
// the cut answer as it was. Now the Client's caller gets the text so far
// and a truncated stream naming the bridge's reason, Timing keeps the
// reason, and a Router continues the answer at its next route.
func TestOpencodexIncompleteIsCut(t *testing.T) {
	for _, tc := range []struct{ name, reason string }{
		{"opencodex-responses-stall-timeout-incomplete-done", "upstream_stall_timeout"},
		{"opencodex-responses-adapter-eof-incomplete-done", "adapter_eof"},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fx := fixture(t, tc.name)
				model := fx.Request.Body.Model
				url, hc := serve(t, byModel(map[string]http.Handler{model: replay(fx.recording), "second": secondRoute}))
				c := tokenpace.NewClient(openaiClient(url, hc))

				got := readResponseStream(c.NewResponseStreaming(context.Background(), respond(model, 64)))
				var se *tokenpace.StreamError
				if !errors.As(got.err, &se) || se.Kind != tokenpace.KindTruncated || se.Detail != "finish_reason "+strconv.Quote(tc.reason) {
					t.Errorf("Client: err %v, want a truncated stream of finish_reason %q", got.err, tc.reason)
				}
				if got.text != fx.Expect.Text || got.acc != fx.Expect.Text {
					t.Errorf("Client: text %q, accumulated %q; want %q", got.text, got.acc, fx.Expect.Text)
				}
				if got.tm.FinishReason != tc.reason {
					t.Errorf("Client: Timing.FinishReason %q, want %q", got.tm.FinishReason, tc.reason)
				}

				rt, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true}, tokenpace.Route{Name: "first", Model: model}, route("second"))
				if err != nil {
					t.Fatal(err)
				}
				got = readResponseStream(rt.NewResponseStreaming(context.Background(), respond(model, 64)))
				if want := fx.Expect.Text + extra; got.err != nil || got.text != want || got.acc != want {
					t.Errorf("Router: text %q, accumulated %q, err %v; want %q continued at the next route", got.text, got.acc, got.err, want)
				}
			})
		})
	}
}
