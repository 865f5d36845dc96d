package tokenpace_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
)

// TestLemonadeRequestErrorInStream replays Lemonade Server relaying its
// upstream's refusal inside its own 200 event stream: llama-server's 400
// for a prompt over the context arrives as one error event whose object
// carries the upstream's status as status_code (lemond 11.6.0 and later,
// streaming_proxy.cpp, forward_sse_stream; lemonade-sdk/lemonade#3006).
// The caller gets the message with that status; a Router goes on to its
// next route and its breaker, the server being well, stays closed. The
// server's own failure in the same stream (its watchdog's reset of a
// backend that died, no status_code) is still counted.
func TestLemonadeRequestErrorInStream(t *testing.T) {
	wantRelayedRefusal(t, "lemonade-backend-error-status-code", "lemonade-watchdog-reset-midstream", http.StatusBadRequest)
}

// TestLemonadeResponsesRequestErrorInStream replays the same refusal on
// Lemonade's /v1/responses, which forwards a Responses stream through the
// same proxy: llama-server's 400 comes as one chat-shaped data event, no
// response.created. The caller gets the message with status 400; a Router
// goes on to its next route and its breaker stays closed, while a
// response.failed of the server's own (Osaurus's, for a model no service
// serves) still opens it.
func TestLemonadeResponsesRequestErrorInStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		all := loadConformance(t)
		refused := all["lemonade-responses-backend-error-status-code"]
		failed := all["osaurus-responses-unknown-model-failed"]
		answer := all["osaurus-responses-whole-estimated-usage"]
		_, hc, _ := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			switch {
			case strings.HasPrefix(r.URL.Path, "/refused/"):
				replay(refused.recording)(w, r)
			case strings.HasPrefix(r.URL.Path, "/failed/"):
				replay(failed.recording)(w, r)
			default:
				replay(answer.recording)(w, r)
			}
		})
		base := func(name string) option.RequestOption {
			return option.WithBaseURL("http://" + name + ".invalid/" + name + "/v1/")
		}
		client := func(name string) *tokenpace.Client {
			return tokenpace.NewClient(openai.NewClient(base(name), option.WithHTTPClient(hc), option.WithAPIKey("sk-test-secret")))
		}
		params := responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Why budget latency?")}}
		ctx := context.Background()

		got := readResponseStream(client("refused").NewResponseStreaming(ctx, params))
		if !isErrorEvent(got.err, http.StatusBadRequest, refused.Expect.ErrorMessage) || got.text != "" {
			t.Errorf("text %q, err %v; want an error event with the server's message and status 400", got.text, got.err)
		}
		for _, tt := range []struct {
			name   string
			closed bool
		}{{"refused", true}, {"failed", false}} {
			rt, err := tokenpace.NewRouter(client(tt.name), tokenpace.Policy{},
				tokenpace.Route{Name: tt.name}, tokenpace.Route{Name: "ok", Options: []option.RequestOption{base("ok")}})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 12 { // more than the 5 failures that open a breaker
				r := readResponseStream(rt.NewResponseStreaming(ctx, params))
				if r.err != nil || r.text != answer.Expect.Text {
					t.Fatalf("%s, Router call %d: text %q, err %v; want the next route's answer %q", tt.name, i, r.text, r.err, answer.Expect.Text)
				}
			}
			if st, ok := rt.BreakerState(tt.name); !ok || (st == gobreaker.StateClosed) != tt.closed {
				t.Errorf("%s: breaker %v after 12 calls, want closed: %v", tt.name, st, tt.closed)
			}
		}
	})
}
