package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
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
	synctest.Test(t, func(t *testing.T) {
		refused := loadConformance(t)["lemonade-backend-error-status-code"]
		failed := loadConformance(t)["lemonade-watchdog-reset-midstream"]
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
		var ae *openai.Error
		var se *tokenpace.StreamError
		if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindErrorEvent || !errors.As(s.Err(), &ae) ||
			ae.StatusCode != http.StatusBadRequest || ae.Message != refused.Expect.ErrorMessage || text != "" {
			t.Errorf("text %q, err %v; want an error event with the server's message and status 400", text, s.Err())
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
