package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// stalledPrinted answers with the start of a whole chat answer printed
// over many lines, as OpenAI prints one, labelled application/json, and
// then sends nothing more until the request ends.
func stalledPrinted(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte("{\n  \"id\": \"chatcmpl-1\",\n  \"object\": \"chat.completion\",\n"))
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// TestWholePrintedStalled: a body read to its end because its first line
// opens a JSON object (a whole answer printed over many lines) that then
// stalls ends as a stalled stream does: the caller's context error, or
// the budget's breach under a Router, never a hang or a wrong content
// type.
func TestWholePrintedStalled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, http.HandlerFunc(stalledPrinted))
		c := tokenpace.NewClient(openaiClient(url, hc))

		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		got := readChat(c.NewStreaming(ctx, chat("tiny", 8)))
		if !errors.Is(got.err, context.DeadlineExceeded) || got.text != "" {
			t.Errorf("Client: %q, %v; want no text and the caller's deadline", got.text, got.err)
		}

		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: time.Second}}, route("tiny"))
		if err != nil {
			t.Fatal(err)
		}
		got = readChat(r.NewStreaming(context.Background(), chat("tiny", 8)))
		if !errors.Is(got.err, tokenpace.ErrBudgetExceeded) || got.text != "" {
			t.Errorf("Router: %q, %v; want no text and the TTFT budget's breach", got.text, got.err)
		}
	})
}

// heldOpen answers with body, labelled application/json, and then holds
// the response open, sending nothing more, until the request ends.
func heldOpen(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// TestWholePrintedHeldOpen: a JSON object printed over many lines ends at
// its closing brace, not at the end of the body. A whole answer printed so
// reaches the caller though the server holds the response open after it,
// and a printed object that is no whole answer (a chunk, as a stream
// printed so would begin) is KindContentType at once, not when the body
// ends.
func TestWholePrintedHeldOpen(t *testing.T) {
	const answer = "{\n  \"id\": \"chatcmpl-1\",\n  \"object\": \"chat.completion\",\n  \"created\": 1,\n  \"model\": \"tiny\",\n" +
		"  \"choices\": [\n    {\n      \"index\": 0,\n      \"message\": {\n        \"role\": \"assistant\",\n        \"content\": \"Hi {there}\"\n      },\n" +
		"      \"finish_reason\": \"stop\"\n    }\n  ],\n  \"usage\": {\n    \"prompt_tokens\": 3,\n    \"completion_tokens\": 2,\n    \"total_tokens\": 5\n  }\n}\n"
	const chunk = "{\n  \"id\": \"chatcmpl-1\",\n  \"object\": \"chat.completion.chunk\",\n  \"created\": 1,\n  \"model\": \"tiny\",\n" +
		"  \"choices\": [\n    {\n      \"index\": 0,\n      \"delta\": {\n        \"content\": \"Hi\"\n      }\n    }\n  ]\n}\n"
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct {
			name, body, text string
			kind             tokenpace.ErrorKind
		}{
			{"a whole answer", answer, "Hi {there}", 0},
			{"a chunk", chunk, "", tokenpace.KindContentType},
		} {
			url, hc := serve(t, heldOpen(tc.body))
			c := tokenpace.NewClient(openaiClient(url, hc))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			got := readChat(c.NewStreaming(ctx, chat("tiny", 8)))
			cancel()
			var se *tokenpace.StreamError
			switch {
			case tc.kind == 0 && (got.err != nil || got.text != tc.text):
				t.Errorf("%s: %q, %v; want %q and no error", tc.name, got.text, got.err, tc.text)
			case tc.kind != 0 && (!errors.As(got.err, &se) || se.Kind != tc.kind || got.text != ""):
				t.Errorf("%s: %q, %v; want no text and %v", tc.name, got.text, got.err, tc.kind)
			}
		}
	})
}

// TestWholePrintedCut: a whole answer printed over many lines that does
// not arrive whole fails as a stream that does not: cut at the body's
// end, KindTruncated; its connection lost, KindReset; longer than the
// limit on a line, KindTooLarge. Each was KindContentType, which said the
// server sent no stream at all, and counted as a buffering proxy's sign.
func TestWholePrintedCut(t *testing.T) {
	const start = "{\n  \"id\": \"chatcmpl-1\",\n  \"object\": \"chat.completion\",\n  \"choices\": [\n    {\n      \"index\": 0,\n      \"message\": {\n        \"content\": \"Hi the"
	cut := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(start))
	}
	lost := func(w http.ResponseWriter, r *http.Request) {
		cut(w, r)
		w.(http.Flusher).Flush()
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close()
		}
	}
	long := func(w http.ResponseWriter, r *http.Request) {
		cut(w, r)
		_, _ = w.Write([]byte(strings.Repeat("e", 200) + "\"\n      }\n    }\n  ]\n}\n"))
	}
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct {
			name string
			h    http.HandlerFunc
			kind tokenpace.ErrorKind
		}{
			{"cut at the body's end", cut, tokenpace.KindTruncated},
			{"its connection lost", lost, tokenpace.KindReset},
			{"over the limit", long, tokenpace.KindTooLarge},
		} {
			url, hc := serve(t, tc.h)
			c := tokenpace.NewClient(openaiClient(url, hc), tokenpace.WithMaxLineBytes(200))
			got := readChat(c.NewStreaming(context.Background(), chat("tiny", 8)))
			var se *tokenpace.StreamError
			if !errors.As(got.err, &se) || se.Kind != tc.kind || got.text != "" {
				t.Errorf("%s: %q, %v; want no text and %v", tc.name, got.text, got.err, tc.kind)
			}
		}
	})
}

// TestPrintedNoJSON: a body that is no event stream and begins with a
// brace but is no JSON, on one line or many (a Python dict's repr, a style
// sheet, one line longer than the limit), is KindContentType with its
// Content-Type, as an HTML page is: no whole answer cut short, too large
// or reset. Before, each read as a whole answer cut (KindTruncated) or
// too large (KindTooLarge), which the buffering proxy's detection in
// metrics, reading KindContentType, missed.
func TestPrintedNoJSON(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct{ name, body string }{
			{"a dict's repr", "{'detail': 'unexpected {'}\n"},
			{"a style sheet", "{\n  color: red;\n"},
			{"a line over the limit", "{\n  color: red;\n  background: " + strings.Repeat("x", 300) + ";\n}\n"},
		} {
			url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				_, _ = w.Write([]byte(tc.body))
			}))
			c := tokenpace.NewClient(openaiClient(url, hc), tokenpace.WithMaxLineBytes(200))
			got := readChat(c.NewStreaming(context.Background(), chat("tiny", 8)))
			var se *tokenpace.StreamError
			if !errors.As(got.err, &se) || se.Kind != tokenpace.KindContentType || se.Detail != "text/plain" || got.text != "" {
				t.Errorf("%s: %q, %v; want no text and %v text/plain", tc.name, got.text, got.err, tokenpace.KindContentType)
			}
		}
	})
}

// printedError is an error object printed over many lines, as OpenAI
// prints its error bodies, sent with status 200 in answer to a streamed
// request.
const printedError = "{\n  \"error\": {\n    \"message\": \"Invalid model: tiny\",\n    \"type\": \"invalid_request_error\",\n    \"code\": \"model_not_found\"\n  }\n}\n"

// TestPrintedErrorIn200: an error object printed over many lines in
// place of a stream is the server's error, KindErrorEvent with its
// message and code, as the same object on one line is, on every API.
// Before, it was KindContentType on every API, its message lost.
func TestPrintedErrorIn200(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, body := range []string{printedError, strings.ReplaceAll(strings.ReplaceAll(printedError, "\n", ""), "  ", "") + "\n"} {
			url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(body))
			}))
			c := tokenpace.NewClient(openaiClient(url, hc))
			ctx := context.Background()
			for api, err := range map[string]error{
				"chat":        readChat(c.NewStreaming(ctx, chat("tiny", 8))).err,
				"completions": readCompletionStream(c.NewCompletionStreaming(ctx, openai.CompletionNewParams{Model: "tiny", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("Hi")}})).err,
				"responses":   readResponseStream(c.NewResponseStreaming(ctx, respond("tiny", 8))).err,
			} {
				var se *tokenpace.StreamError
				var ae *openai.Error
				if !errors.As(err, &se) || se.Kind != tokenpace.KindErrorEvent || !errors.As(err, &ae) ||
					ae.Message != "Invalid model: tiny" || ae.Code != "model_not_found" {
					t.Errorf("%s, %d lines: %v; want %v with the message and code", api, strings.Count(body, "\n"), err, tokenpace.KindErrorEvent)
				}
			}
		}
	})
}
