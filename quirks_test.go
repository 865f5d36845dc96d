package tokenpace_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// Servers' habits that no test of the simulator's writes: each body below
// is what a real server (or a hostile one) sends, replayed through the
// public API.

// chunk returns the SSE event of a chat chunk with id, content and, when
// not empty, a finish reason and a usage object.
func chunk(id, content, finish, usage string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	u := ""
	if usage != "" {
		u = `,"usage":` + usage
	}
	return fmt.Sprintf(`data: {"id":%q,"object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":%q},"finish_reason":%s}]%s}`+"\n\n", id, content, f, u)
}

// sseBody is a handler that answers every request with status 200 and
// body, an event stream, written in one piece.
func sseBody(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	}
}

// byModel is a handler that answers each request with the handler of the
// model it names.
func byModel(h map[string]http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Model string }
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &req)
		r.Body = io.NopCloser(bytes.NewReader(b))
		h[req.Model].ServeHTTP(w, r)
	}
}

const extra = " EXTRA-FROM-CONTINUATION"

// quirkRouter returns a Router that continues a broken stream of route
// "first", served by h, on route "second", which answers extra.
func quirkRouter(t *testing.T, h http.Handler) *tokenpace.Router {
	t.Helper()
	url, hc := serve(t, byModel(map[string]http.Handler{
		"first":  h,
		"second": sseBody(chunk("s1", extra, "stop", "") + "data: [DONE]\n\n"),
	}))
	r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tokenpace.Policy{Continue: true}, route("first"), route("second"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

const answer = "The answer is 42."

// A stream whose answer is complete (a finish reason came) is the
// caller's whole answer, whether [DONE] follows, follows without its
// blank line, or never comes: never a truncation, never continued.
func TestFinishedWithoutDone(t *testing.T) {
	head := chunk("c1", "The answer", "", "") + chunk("c1", " is 42.", "", "")
	usage := `{"prompt_tokens":7,"completion_tokens":5,"total_tokens":12}`
	finish := chunk("c1", "", "stop", usage)
	tests := []struct{ name, body string }{
		{"no [DONE]", head + finish},
		{"[DONE] without a blank line", head + finish + "data: [DONE]\n"},
		{"last event without a blank line", head + strings.TrimSuffix(finish, "\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, sseBody(tt.body))
				s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("m", 10))
				if got := readAll(t, s); got != answer || s.Err() != nil {
					t.Errorf("Client: read %q, Err() = %v; want %q, nil", got, s.Err(), answer)
				}
				if tm := s.Timing(); tm.FinishReason != "stop" || tm.OutputTokens != 5 || tm.Err != nil {
					t.Errorf("Client: Timing finish %q, output tokens %d, Err %v; want stop, 5, nil", tm.FinishReason, tm.OutputTokens, tm.Err)
				}

				rs := quirkRouter(t, sseBody(tt.body)).NewStreaming(context.Background(), chat("first", 10))
				if got := readAll(t, rs); got != answer || rs.Err() != nil {
					t.Errorf("Router: read %q, Err() = %v; want %q, nil", got, rs.Err(), answer)
				}
				if got := rs.Accumulated().Choices[0].Message.Content; got != answer {
					t.Errorf("Router: Accumulated() = %q, want %q", got, answer)
				}
				if got := outcomes(rs.Timing()); len(got) != 1 || got[0] != tokenpace.OutcomeWon {
					t.Errorf("Router: outcomes %v, want [won]", got)
				}
			})
		})
	}
}

// A stream cut before its finish reason is still truncated, and a Router
// with Continue carries it on.
func TestUnfinishedWithoutDoneIsTruncated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		body := chunk("c1", "The answer", "", "") + chunk("c1", " is", "", "")
		url, hc := serve(t, sseBody(body))
		s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("m", 10))
		if got := readAll(t, s); got != "The answer is" {
			t.Errorf("read %q, want %q", got, "The answer is")
		}
		checkKind(t, s.Err(), tokenpace.KindTruncated)

		rs := quirkRouter(t, sseBody(body)).NewStreaming(context.Background(), chat("first", 10))
		if got, want := readAll(t, rs), "The answer is"+extra; got != want || rs.Err() != nil {
			t.Errorf("Router: read %q, Err() = %v; want %q, nil", got, rs.Err(), want)
		}
	})
}

// Servers that give every chunk an id of its own: Accumulated holds what
// the caller read.
func TestAccumulatedChangingIDs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var body strings.Builder
		for i, w := range []string{"one", " two", " three", " four."} {
			body.WriteString(chunk(fmt.Sprintf("chatcmpl-%d", i), w, "", ""))
		}
		body.WriteString(chunk("chatcmpl-9", "", "stop", "") + "data: [DONE]\n\n")
		url, hc := serve(t, sseBody(body.String()))
		s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("m", 10))
		read := readAll(t, s)
		if got := s.Accumulated().Choices[0].Message.Content; got != read || got != "one two three four." || s.Err() != nil {
			t.Errorf("Accumulated() = %q, read %q, Err() = %v; want both %q, nil", got, read, s.Err(), "one two three four.")
		}
	})
}

// A chunk no real server sends is an error, never a chunk dropped from
// Accumulated or a decoding that takes gigabytes.
func TestHostileChunks(t *testing.T) {
	empties := func(field string, n int) string {
		return strings.Repeat(`{},`, n) + `{}`
	}
	tests := []struct {
		name string
		data string // the data of the second event
		want tokenpace.ErrorKind
	}{
		{"choice index beyond n", `{"id":"c","choices":[{"index":0,"delta":{}},{"index":200,"delta":{"content":"x"}}]}`, tokenpace.KindTooLarge},
		{"choices beyond n", `{"id":"c","choices":[{"index":0,"delta":{"content":"x"}},{"index":1,"delta":{"content":"y"}}]}`, tokenpace.KindTooLarge},
		{"empty choices", `{"id":"c","choices":[{"index":0,"delta":{"content":"x"}},` + empties("", 200_000) + `]}`, tokenpace.KindTooLarge},
		{"empty tool calls", `{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[` + empties("", 200_000) + `]}}]}`, tokenpace.KindTooLarge},
		{"many tool calls", `{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[` + strings.Repeat(`{"index":0},`, 200) + `{"index":0}]}}]}`, tokenpace.KindTooLarge},
		{"tool call index", `{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":100000,"function":{"name":"f"}}]}}]}`, tokenpace.KindMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				body := chunk("c", "first ", "", "") + "data: " + tt.data + "\n\n" + chunk("c", "", "stop", "") + "data: [DONE]\n\n"
				url, hc := serve(t, sseBody(body))
				before := allocated()
				s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("m", 10))
				if got := readAll(t, s); got != "first " {
					t.Errorf("read %q, want %q", got, "first ")
				}
				checkKind(t, s.Err(), tt.want)
				if got := s.Accumulated().Choices[0].Message.Content; got != "first " {
					t.Errorf("Accumulated() = %q, want %q", got, "first ")
				}
				if a := allocated() - before; a > 64<<20 {
					t.Errorf("allocated %d MiB, want under 64", a>>20)
				}
			})
		})
	}
}

// allocated returns the bytes allocated by the program so far.
func allocated() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// An error body is read within a bound, whatever it inflates to: the
// caller gets the status and the body's first bytes.
func TestErrorBodyBounded(t *testing.T) {
	gz := gzipRun(`{"error":{"message":"`, 'x', 128<<20)
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write(gz)
		}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		for _, call := range []struct {
			name string
			do   func() error
		}{
			{"NewStreaming", func() error {
				s := c.NewStreaming(context.Background(), chat("m", 10))
				defer s.Close()
				for s.Next() {
				}
				return s.Err()
			}},
			{"New", func() error { _, err := c.New(context.Background(), chat("m", 10)); return err }},
		} {
			before := allocated()
			err := call.do()
			if a := allocated() - before; a > 32<<20 {
				t.Errorf("%s: allocated %d MiB, want under 32", call.name, a>>20)
			}
			checkKind(t, err, tokenpace.KindTooLarge)
			var ae *openai.Error
			if !errors.As(err, &ae) || ae.StatusCode != 500 || !strings.Contains(ae.Message, `{"error":{"message":"xxx`) {
				t.Errorf("%s: error %v; want an *openai.Error of status 500 with the body's first bytes", call.name, err)
			}
		}
	})
}

// A server that compresses a stream the client asked to get as it is.
func TestGzipToIdentity(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			_, _ = io.WriteString(zw, chunk("c", answer, "stop", "")+"data: [DONE]\n\n")
			_ = zw.Close()
		}))
		s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("m", 10),
			option.WithHeader("Accept-Encoding", "identity"))
		if got := readAll(t, s); got != answer || s.Err() != nil {
			t.Errorf("read %q, Err() = %v; want %q, nil", got, s.Err(), answer)
		}
	})
}

// Usage with negative or absurd counts is not taken as the server's word.
func TestAbsurdUsage(t *testing.T) {
	for _, usage := range []string{
		`{"prompt_tokens":-5,"completion_tokens":3,"total_tokens":-2}`,
		`{"prompt_tokens":5,"completion_tokens":4611686018427387904,"total_tokens":4611686018427387909}`,
	} {
		t.Run(usage, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				body := chunk("c", "a", "", "") + chunk("c", "b", "", "") + chunk("c", "", "stop", usage) + "data: [DONE]\n\n"
				url, hc := serve(t, sseBody(body))
				s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("m", 10))
				readAll(t, s)
				if tm := s.Timing(); tm.UsageReported || tm.PromptTokens != 0 || tm.OutputTokens != 2 {
					t.Errorf("Timing (reported %v, prompt %d, output %d), want (false, 0, 2)", tm.UsageReported, tm.PromptTokens, tm.OutputTokens)
				}
			})
		})
	}
}

// A sentence terminator split mid-rune between two chunks ends the first
// sentence when its second half arrives, not at the end of the stream.
func TestFirstSentenceSplitRune(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		full := "完成。"
		cut := len(full) - 1 // inside 。
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			rc := http.NewResponseController(w)
			// Raw bytes in the JSON strings, as a server that streams a
			// token's bytes sends them: %q would escape them.
			raw := func(content string) string {
				return `data: {"id":"c","choices":[{"index":0,"delta":{"content":"` + content + `"},"finish_reason":null}]}` + "\n\n"
			}
			for _, part := range []string{
				raw(full[:cut]), raw(full[cut:] + "好"), chunk("c", "的", "stop", ""), "data: [DONE]\n\n",
			} {
				_, _ = io.WriteString(w, part)
				_ = rc.Flush()
				time.Sleep(100 * time.Millisecond)
			}
		}))
		s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("m", 10))
		if got := readAll(t, s); got != full+"好的" {
			t.Errorf("read %q, want %q", got, full+"好的")
		}
		if d, ok := s.Timing().Milestone(tokenpace.MilestoneFirstSentence); !ok || d != 100*time.Millisecond {
			t.Errorf("first sentence at %v (%v), want 100ms", d, ok)
		}
	})
}

// An output of more chunks than MaxChunkStamps keeps the stamps of the
// first ones only, and its count, last arrival, longest gap and TPOT whole.
func TestChunkStampsBounded(t *testing.T) {
	const n, gapAt = tokenpace.MaxChunkStamps + 4000, tokenpace.MaxChunkStamps + 2000
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		var b strings.Builder
		for i := range n {
			if i == gapAt || i == 1 {
				_, _ = io.WriteString(w, b.String())
				_ = rc.Flush()
				b.Reset()
				if i == 1 {
					time.Sleep(time.Second / 2)
				} else {
					time.Sleep(time.Second) // the longest gap, past the stamps
				}
			}
			b.WriteString(`data: {"id":"c","choices":[{"index":0,"delta":{"content":"x"}}]}` + "\n\n")
		}
		b.WriteString(chunk("c", "", "stop", "") + "data: [DONE]\n\n")
		_, _ = io.WriteString(w, b.String())
	})
	for _, viaRouter := range []bool{false, true} {
		t.Run(fmt.Sprint("router ", viaRouter), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, h)
				c := tokenpace.NewClient(openaiClient(url, hc))
				s := c.NewStreaming(context.Background(), chat("m", n))
				if viaRouter {
					r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, route("m"))
					if err != nil {
						t.Fatal(err)
					}
					s.Close()
					s = r.NewStreaming(context.Background(), chat("m", n))
				}
				start := time.Now()
				read := 0
				for s.Next() {
					read++
				}
				tm := s.Timing()
				if s.Err() != nil || read != n+1 || tm.OutputChunks != n || len(tm.Chunks) != tokenpace.MaxChunkStamps {
					t.Fatalf("Err %v, read %d, OutputChunks %d, %d stamps; want nil, %d, %d, %d", s.Err(), read, tm.OutputChunks, len(tm.Chunks), n+1, n, tokenpace.MaxChunkStamps)
				}
				if got, want := tm.LastChunk.Sub(start), 1500*time.Millisecond; got != want {
					t.Errorf("last chunk %v after the call, want %v", got, want)
				}
				if got := tm.MaxGap(); got != time.Second {
					t.Errorf("MaxGap() = %v, want 1s", got)
				}
				if got, want := tm.TPOT(), 1500*time.Millisecond/time.Duration(n-1); got != want {
					t.Errorf("TPOT() = %v, want %v", got, want)
				}
			})
		})
	}
}

// Error bodies in shapes of their own, which openai-go alone does not
// decode (an error that is a string: Ollama, LM Studio; a "detail":
// FastAPI, KoboldCpp, seen live with 1.76 busy, vllm-mlx's busy engine,
// its code beside its message): the caller gets the
// status and the server's message alone in an *openai.Error (before: the
// body as the message, "not valid JSON", or no message), and the error's
// name, where it gives one, as the Detail.
func TestErrorAsString(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bodies := map[string]struct {
			status     int
			body       string
			msg, their string
		}{
			"llama9":    {http.StatusNotFound, `{"error":"model \"llama9\" not found, try pulling it first"}`, `model "llama9" not found, try pulling it first`, ""},
			"lmstudio":  {http.StatusBadRequest, `{"error":"No models loaded. Please load a model in the developer page or use the 'lms load' command."}`, "No models loaded. Please load a model in the developer page or use the 'lms load' command.", ""},
			"koboldcpp": {http.StatusServiceUnavailable, `{"detail": {"msg": "Server is busy; please try again later.", "type": "service_unavailable"}}`, "Server is busy; please try again later.", "service_unavailable"},
			"fastapi":   {http.StatusNotFound, `{"detail":"Not Found"}`, "Not Found", ""},
			"vllm-mlx":  {http.StatusServiceUnavailable, `{"detail":{"error":"text_generation_busy","message":"SimpleEngine serialized route is busy; retry later"}}`, "SimpleEngine serialized route is busy; retry later", "text_generation_busy"},
		}
		handlers := map[string]http.Handler{}
		for model, b := range bodies {
			handlers[model] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(b.status)
				_, _ = io.WriteString(w, b.body)
			})
		}
		url, hc := serve(t, byModel(handlers))
		c := tokenpace.NewClient(openaiClient(url, hc))
		for model, b := range bodies {
			s := c.NewStreaming(context.Background(), chat(model, 10), option.WithMaxRetries(0))
			readAll(t, s)
			checkKind(t, s.Err(), tokenpace.KindRequest)
			var ae *openai.Error
			var se *tokenpace.StreamError
			if !errors.As(s.Err(), &ae) || ae.StatusCode != b.status || ae.Message != b.msg || !errors.As(s.Err(), &se) || se.Detail != b.their {
				t.Errorf("%s: Err() = %v, want an *openai.Error of status %d with the message %q and the Detail %q", model, s.Err(), b.status, b.msg, b.their)
			}
		}
	})
}

// Gemini's OpenAI endpoint sends its errors as an array holding one error
// object: the caller still gets the status, the message and the code, in
// a streaming call and a whole one, which openai-go alone loses.
func TestErrorAsArray(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const body = `[{
  "error": {
    "code": 400,
    "message": "Function calling with a response mime type: 'application/json' is unsupported",
    "status": "INVALID_ARGUMENT"
  }
}
]`
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, body)
		}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		s := c.NewStreaming(context.Background(), chat("gemini-2.5-flash", 10))
		readAll(t, s)
		_, werr := c.New(context.Background(), chat("gemini-2.5-flash", 10))
		for _, err := range []error{s.Err(), werr} {
			checkKind(t, err, tokenpace.KindRequest)
			var ae *openai.Error
			if !errors.As(err, &ae) || ae.StatusCode != 400 || !strings.HasPrefix(ae.Message, "Function calling with a response mime type") || ae.Code != "400" {
				t.Errorf("Err() = %v, want an *openai.Error of status 400 with the server's message and code", err)
			}
		}
	})
}

// An error sent mid-stream ends the stream with KindErrorEvent and the
// server's message, the text so far kept, whatever its shape: an "error"
// object, a bare message string, or an event whose object is "error".
func TestErrorEventShapes(t *testing.T) {
	for name, event := range map[string]string{
		"error object":    `{"error":{"message":"engine died","type":"InternalServerError","code":500}}`,
		"error string":    `{"error":"engine died"}`,
		"object is error": `{"object":"error","message":"engine died","type":"InternalServerError","param":null,"code":500}`,
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, sseBody(chunk("c", "partial", "", "")+"data: "+event+"\n\ndata: [DONE]\n\n"))
				s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("m", 10))
				if got := readAll(t, s); got != "partial" {
					t.Errorf("read %q, want %q", got, "partial")
				}
				checkKind(t, s.Err(), tokenpace.KindErrorEvent)
				var ae *openai.Error
				if !errors.As(s.Err(), &ae) || ae.Message != "engine died" {
					t.Errorf("Err() = %v, want an *openai.Error with the server's message", s.Err())
				}
			})
		})
	}
}
