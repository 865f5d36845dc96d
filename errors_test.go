package tokenpace_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

const chunkFmt = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":%q},"finish_reason":null}]}` + "\n\n"

// stopDone ends a chat stream as servers end a finished answer: a chunk
// with the finish reason, then [DONE].
const stopDone = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" + "data: [DONE]\n\n"

func contentEvent(s string) string {
	return strings.Replace(chunkFmt, "%q", `"`+s+`"`, 1)
}

// script is a handler that sends its events one per 10 ms after 10 ms,
// with Content-Type ct.
func script(ct string, events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(200)
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		for _, e := range events {
			if !sleepUntil(r.Context(), time.Now().Add(10*time.Millisecond)) {
				return
			}
			if _, err := io.WriteString(w, e); err != nil {
				return
			}
			_ = rc.Flush()
		}
	}
}

// TestBadStreams checks that every way a stream can go wrong ends it with a
// typed error (never a panic or a hang), keeps the output that arrived
// before, and reports the ending exactly once.
func TestBadStreams(t *testing.T) {
	const sse = "text/event-stream"
	tests := []struct {
		name    string
		handler http.Handler // nil: the simulator, with fault
		fault   string
		opts    []tokenpace.Option
		kind    tokenpace.ErrorKind
		partial string // accumulated content when the error came
		detail  string // the StreamError's Detail, if given
	}{
		{name: "reset mid-stream", fault: "reset;after=3", kind: tokenpace.KindReset, partial: "3 tokens here"},
		{name: "malformed event", fault: "malformed;after=2", kind: tokenpace.KindMalformed, partial: "3 tokens"},
		{name: "error status", fault: "500", kind: tokenpace.KindRequest},
		{name: "no [DONE]", handler: script(sse, contentEvent("Hel"), contentEvent("lo")), kind: tokenpace.KindTruncated, partial: "Hello"},
		{name: "empty body", handler: script(sse), kind: tokenpace.KindTruncated, detail: "empty body"},
		// KoboldCpp before 1.86 (PowerShell/AIShell#350) sent the string
		// "null" as every chunk's finish reason: it is none, and a stream
		// cut after such chunks is cut short.
		{name: `no [DONE] after finish reasons "null"`, handler: script(sse, chunk("k", "Hel", "null", ""), chunk("k", "lo", "null", "")),
			kind: tokenpace.KindTruncated, partial: "Hello"},
		// one-api drops an upstream's error event (no choices, no usage)
		// and ends with [DONE]; cut mid-answer, it ends with [DONE] too.
		{name: "[DONE] alone (a relay that dropped the upstream's error)", handler: script(sse, "data: [DONE]\n\n"),
			kind: tokenpace.KindTruncated, detail: "no finish_reason"},
		{name: "[DONE] before any finish reason (a relay's cut)", handler: script(sse, contentEvent("Hel"), contentEvent("lo"), "data: [DONE]\n\n"),
			kind: tokenpace.KindTruncated, partial: "Hello", detail: "no finish_reason"},
		{name: "wrong content type", handler: script("application/json", `{"id":"x"}`), kind: tokenpace.KindContentType},
		// No Content-Type: read as an event stream, as openai-go reads it.
		{name: "no content type", handler: script("", contentEvent("a")), kind: tokenpace.KindTruncated, partial: "a"},
		{name: "an HTML page labelled text/plain", handler: script("text/plain", "<html><body>Gateway login</body></html>"), kind: tokenpace.KindContentType},
		// An answer that ends before its first byte is cut short, whatever
		// its label: Ollama answers some of several concurrent requests
		// with 200, application/x-ndjson and no byte (seen live, August
		// 2026); it is no other format.
		{name: "an empty body labelled text/plain", handler: script("text/plain"), kind: tokenpace.KindTruncated, detail: "empty body"},
		{name: "an empty body labelled application/x-ndjson (Ollama)", handler: script("application/x-ndjson"), kind: tokenpace.KindTruncated, detail: "empty body"},
		{name: "line too long", handler: script(sse, contentEvent("ok"), contentEvent(strings.Repeat("x", 70<<10))),
			opts: []tokenpace.Option{tokenpace.WithMaxLineBytes(64 << 10)}, kind: tokenpace.KindTooLarge, partial: "ok"},
		{name: "event too long", handler: script(sse, contentEvent("ok"), strings.Repeat("data: "+strings.Repeat("x", 1<<10)+"\n", 100)+"\n"),
			opts: []tokenpace.Option{tokenpace.WithMaxLineBytes(64 << 10)}, kind: tokenpace.KindTooLarge, partial: "ok"},
		{name: "not JSON", handler: script(sse, contentEvent("a"), "data: {not json\n\n"), kind: tokenpace.KindMalformed, partial: "a"},
		{name: "error event", handler: script(sse, contentEvent("a"),
			`data: {"error":{"message":"overloaded","type":"server_error","code":"overloaded"}}`+"\n\n"),
			kind: tokenpace.KindErrorEvent, partial: "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var rec record
				opts := append([]tokenpace.Option{tokenpace.WithHooks(rec.hooks())}, tt.opts...)
				var c *tokenpace.Client
				var ropts []option.RequestOption
				if tt.handler == nil {
					c = simClient(t, []simulate.Option{
						simulate.WithModel("m", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond}),
						simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return "3 tokens here and more", true }),
					}, opts...)
					ropts = append(ropts, option.WithHeader(simulate.FaultHeader, tt.fault))
				} else {
					url, hc := serve(t, tt.handler)
					c = tokenpace.NewClient(openaiClient(url, hc), opts...)
				}
				s := c.NewStreaming(context.Background(), chat("m", 10), ropts...)
				drain(t, s, 0)
				se := checkKind(t, s.Err(), tt.kind)
				if tt.detail != "" && se.Detail != tt.detail {
					t.Errorf("Detail = %q, want %q", se.Detail, tt.detail)
				}
				if strings.Contains(se.Error(), "sk-test-secret") {
					t.Errorf("error %q holds the API key", se.Error())
				}
				var content string
				if ch := s.Accumulated().Choices; len(ch) > 0 {
					content = ch[0].Message.Content
				}
				if content != tt.partial {
					t.Errorf("Accumulated content = %q, want %q", content, tt.partial)
				}
				s.Close()
				if len(rec.done) != 1 {
					t.Fatalf("Done called %d times, want 1", len(rec.done))
				}
				if got := rec.done[0].Err; got != s.Err() {
					t.Errorf("Timing.Err = %v, want %v", got, s.Err())
				}
				if rec.done[0].End.IsZero() {
					t.Errorf("Timing.End is zero")
				}
			})
		})
	}
}

// TestErrorEventUnwrapsToAPIError checks that an error sent inside the
// stream is reachable as an *openai.Error, message included, while the
// StreamError's own text leaves the message out.
func TestErrorEventUnwrapsToAPIError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, script("text/event-stream",
			`data: {"error":{"message":"secret detail","type":"server_error","code":"overloaded"}}`+"\n\n"))
		c := tokenpace.NewClient(openaiClient(url, hc))
		s := c.NewStreaming(context.Background(), chat("m", 10))
		drain(t, s, 0)
		var apiErr *openai.Error
		if !errors.As(s.Err(), &apiErr) {
			t.Fatalf("errors.As(%v, *openai.Error) = false, want true", s.Err())
		}
		if apiErr.Message != "secret detail" || apiErr.Code != "overloaded" {
			t.Errorf("*openai.Error = {Message: %q, Code: %q}, want {secret detail, overloaded}", apiErr.Message, apiErr.Code)
		}
		if strings.Contains(s.Err().Error(), "secret detail") {
			t.Errorf("Err().Error() = %q, holds the server's message", s.Err().Error())
		}
	})
}

// TestCancelAndClose checks the endings a caller causes: cancelling the
// context passes its error through unchanged; Close leaves Err nil and
// records ErrStreamClosed. Both report the ending once and leave no
// goroutine behind.
func TestCancelAndClose(t *testing.T) {
	for _, tt := range []struct {
		name      string
		stop      func(cancel context.CancelFunc, s *tokenpace.Stream[openai.ChatCompletionChunk])
		err, tErr error
	}{
		{name: "cancel", stop: func(cancel context.CancelFunc, _ *tokenpace.Stream[openai.ChatCompletionChunk]) { cancel() }, err: context.Canceled, tErr: context.Canceled},
		{name: "close", stop: func(_ context.CancelFunc, s *tokenpace.Stream[openai.ChatCompletionChunk]) { s.Close() }, err: nil, tErr: tokenpace.ErrStreamClosed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var rec record
				c := simClient(t, []simulate.Option{
					simulate.WithModel("m", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond}),
				}, tokenpace.WithHooks(rec.hooks()))
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				s := c.NewStreaming(ctx, chat("m", 100))
				for i := 0; i < 5 && s.Next(); i++ {
				}
				tt.stop(cancel, s)
				drain(t, s, 0)
				if err := s.Err(); err != tt.err {
					t.Errorf("Err() = %v, want %v", err, tt.err)
				}
				s.Close()
				synctest.Wait()
				if len(rec.done) != 1 {
					t.Fatalf("Done called %d times, want 1", len(rec.done))
				}
				if got := rec.done[0].Err; got != tt.tErr {
					t.Errorf("Timing.Err = %v, want %v", got, tt.tErr)
				}
				// The first of the 5 chunks read is role-only.
				if got := len(rec.done[0].Chunks); got < 4 || got >= 100 {
					t.Errorf("len(Chunks) = %d, want 4..99", got)
				}
			})
		})
	}
}

// TestCancelBeforeHeaders checks that a context cancelled while the request
// waits for its response ends the stream with the context's error.
func TestCancelBeforeHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := simClient(t, []simulate.Option{
			simulate.WithModel("m", &simulate.Fixed{TTFT: time.Second}),
		})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		s := c.NewStreaming(ctx, chat("m", 5), option.WithHeader(simulate.FaultHeader, "slow-headers;for=1s"))
		if s.Next() {
			t.Fatal("Next() = true, want false")
		}
		if err := s.Err(); err != context.DeadlineExceeded {
			t.Errorf("Err() = %v, want %v", err, context.DeadlineExceeded)
		}
		if got := s.Timing().Err; got != context.DeadlineExceeded {
			t.Errorf("Timing().Err = %v, want %v", got, context.DeadlineExceeded)
		}
	})
}

// TestErrorNamesTheServersError checks that a failed request's error says
// which error the server gave by its name, as llama.cpp's 400 for a prompt
// over its context does, so that a caller who prints it knows why, while
// the server's text, and anything in the name's place that is not a name
// (a number, free text, what could be a key), stays out of the message.
func TestErrorNamesTheServersError(t *testing.T) {
	const key = "sk-proj-Ab12Cd34"
	status := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, body)
		}
	}
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		kind    tokenpace.ErrorKind
		detail  string
	}{
		// llama.cpp's answer to a 3,802-token prompt on a 2,048-token slot
		// (recorded from llama-server, August 2026): a number for code.
		{"llama.cpp context", status(`{"error":{"code":400,"message":"request (3802 tokens) exceeds the available context size (2048 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":3802,"n_ctx":2048}}`),
			tokenpace.KindRequest, "exceed_context_size_error"},
		{"OpenAI's code before its type", status(`{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`),
			tokenpace.KindRequest, "context_length_exceeded"},
		{"a key for a code", status(`{"error":{"message":"bad key","type":"` + key + `","code":"` + key + `"}}`),
			tokenpace.KindRequest, ""},
		{"free text for a type", status(`{"error":{"message":"m","type":"the prompt was: tell me a secret"}}`),
			tokenpace.KindRequest, ""},
		{"an error event", script("text/event-stream", `data: {"error":{"code":500,"message":"The model produced output that does not match the expected peg-native format","type":"server_error"}}`+"\n\n"),
			tokenpace.KindErrorEvent, "server_error"},
		{"an error event with a key", script("text/event-stream", `data: {"error":{"message":"m","type":"`+key+`"}}`+"\n\n"),
			tokenpace.KindErrorEvent, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, tc.handler)
				c := tokenpace.NewClient(openaiClient(url, hc))
				s := c.NewStreaming(context.Background(), chat("m", 10))
				drain(t, s, 0)
				var se *tokenpace.StreamError
				if !errors.As(s.Err(), &se) || se.Kind != tc.kind || se.Detail != tc.detail {
					t.Fatalf("Err() = %#v, want a StreamError of %v with Detail %q", s.Err(), tc.kind, tc.detail)
				}
				msg := s.Err().Error()
				if tc.detail != "" && !strings.Contains(msg, tc.detail) {
					t.Errorf("Err().Error() = %q, does not name %s", msg, tc.detail)
				}
				for _, secret := range []string{key, "exceeds", "secret", "maximum context"} {
					if strings.Contains(msg, secret) {
						t.Errorf("Err().Error() = %q, holds %q", msg, secret)
					}
				}
				if tc.kind == tokenpace.KindRequest {
					_, err := c.New(context.Background(), chat("m", 10))
					if !errors.As(err, &se) || se.Detail != tc.detail {
						t.Errorf("New: %v, want Detail %q", err, tc.detail)
					}
				}
			})
		})
	}
}
