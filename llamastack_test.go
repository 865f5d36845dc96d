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

// TestLlamaStackRefusalInStream replays Llama Stack refusing a request
// inside its stream: it calls its provider only once the 200 event stream
// has begun, so vLLM's 400 for a prompt over the context arrives as one
// error event whose message is Starlette's HTTPException as a string,
// "400: …" (llama_stack/core/server/server.py, sse_generator). The
// caller gets the message, with the status it names; a Router goes on
// to its next route and its breaker, the server being well, stays
// closed. The server's own failure in the same shape ("500: …") is still
// counted.
func TestLlamaStackRefusalInStream(t *testing.T) {
	wantRelayedRefusal(t, "llamastack-chat-refused-in-stream", "llamastack-chat-error-midstream", http.StatusBadRequest)
}

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
		var ae *openai.Error
		var se *tokenpace.StreamError
		if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindErrorEvent || !errors.As(s.Err(), &ae) ||
			ae.StatusCode != status || ae.Message != refused.Expect.ErrorMessage || text != "" {
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

// TestLlamaStackResponsesRefusal replays Llama Stack's /v1/responses
// since ogx-ai/ogx#5224: a refusal once the 200 stream has begun is the
// Responses API's error event, its status only as its code, "400"
// (src/ogx_api/responses/fastapi_routes.py, sse_generator). The caller
// gets the message with that status; a Router goes on to its next route
// and its breaker, the server being well, stays closed. The server's own
// failure, code "server_error", is still counted.
func TestLlamaStackResponsesRefusal(t *testing.T) {
	all := loadConformance(t)
	for _, tt := range []struct {
		fixture string
		status  int
		closed  bool
	}{
		{"llamastack-responses-error-event-refused", http.StatusBadRequest, true},
		{"llamastack-responses-error-event-midstream", http.StatusOK, false},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fx := all[tt.fixture]
				// The error event alone after the response's start, before
				// any text, so that a Router goes on to its next route.
				fx.Reads = append(fx.Reads[:2:2], fx.Reads[len(fx.Reads)-1])
				model := fx.Request.Body.Model
				url, hc := serve(t, byModel(map[string]http.Handler{model: replay(fx.recording), "second": secondRoute}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				ctx := context.Background()

				s := c.NewResponseStreaming(ctx, respond(model, 64))
				got := readResponseStream(s)
				var ae *openai.Error
				if !errors.As(got.err, &ae) || ae.StatusCode != tt.status || ae.Message != fx.Expect.ErrorMessage {
					t.Errorf("Client: err %v; want the server's message with status %d", got.err, tt.status)
				}

				rt, err := tokenpace.NewRouter(c, tokenpace.Policy{}, tokenpace.Route{Name: "first", Model: model}, route("second"))
				if err != nil {
					t.Fatal(err)
				}
				for i := range 12 { // more than the 5 failures that open a breaker
					got := readResponseStream(rt.NewResponseStreaming(ctx, respond(model, 64)))
					if got.err != nil || !strings.HasSuffix(got.text, extra) {
						t.Fatalf("Router call %d: text %q, err %v; want the next route's answer", i, got.text, got.err)
					}
				}
				if st, ok := rt.BreakerState("first"); !ok || (st == gobreaker.StateClosed) != tt.closed {
					t.Errorf("breaker %v after 12 calls, want closed: %v", st, tt.closed)
				}
			})
		})
	}
}
