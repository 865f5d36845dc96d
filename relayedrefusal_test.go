package tokenpace_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
)

// wantRelayedRefusal checks a server that relays its upstream's refusal
// inside its own 200 event stream with the status the refusal names
// (conformance case refused): the caller gets an error event with the
// server's message and that status, no text; a Router goes on to its next
// route, and its breaker, the server being well, stays closed after 12
// calls. The server's own failure in the same stream (case failed, its
// last read, the error event, alone) is still counted: the breaker opens.
func wantRelayedRefusal(t *testing.T, refusedCase, failedCase string, status int) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		refused := loadConformance(t)[refusedCase]
		failed := loadConformance(t)[failedCase]
		failed.Reads = failed.Reads[len(failed.Reads)-1:] // the error event alone, before any text
		answer := loadRecording(t, "llamacpp-110m-chat-stream.jsonl")
		_, hc, _ := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			switch {
			case strings.HasPrefix(r.URL.Path, "/refused/"):
				replay(refused.recording)(w, r)
			case strings.HasPrefix(r.URL.Path, "/failed/"):
				replay(failed.recording)(w, r)
			default:
				replay(answer)(w, r)
			}
		})
		base := func(name string) option.RequestOption {
			return option.WithBaseURL("http://" + name + ".invalid/" + name + "/v1/")
		}
		client := func(name string) *tokenpace.Client {
			return tokenpace.NewClient(openai.NewClient(base(name), option.WithHTTPClient(hc), option.WithAPIKey("sk-test-secret")))
		}
		ctx := context.Background()

		s := client("refused").NewStreaming(ctx, chat("m", 4))
		text := readAll(t, s)
		if !isErrorEvent(s.Err(), status, refused.Expect.ErrorMessage) || text != "" {
			t.Errorf("text %q, err %v; want an error event with the server's message and status %d", text, s.Err(), status)
		}

		want := recordedText(t, answer)
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
				s := rt.NewStreaming(ctx, chat("m", 4))
				if text := readAll(t, s); s.Err() != nil || text != want {
					t.Fatalf("%s, Router call %d: text %q, err %v; want the next route's answer", tt.name, i, text, s.Err())
				}
			}
			if st, ok := rt.BreakerState(tt.name); !ok || (st == gobreaker.StateClosed) != tt.closed {
				t.Errorf("%s: breaker %v after 12 calls, want closed: %v", tt.name, st, tt.closed)
			}
		}
	})
}
