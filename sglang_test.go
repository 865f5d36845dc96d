package tokenpace_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// SGLang's answers to a fill-in-the-middle request, re-created from its
// source (testdata/sglang-2026-completions-suffix-*), and its /server_info
// as its docs show it, with and without a completion template
// (testdata/sglang-2026-server-info*).

// serveSGLang serves SGLang's completions answers at /v1/completions, info
// at /server_info and old at /get_server_info (the path of SGLang's builds
// before /server_info; 404 where old is nil), counting the requests by
// path.
func serveSGLang(t *testing.T, completions recording, info, old http.Handler) (*tokenpace.Client, *requestCounts) {
	t.Helper()
	whole := loadRecording(t, "sglang-2026-completions-suffix-nostream.jsonl")
	url, hc, counts := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		switch {
		case r.URL.Path == "/keeps/v1/completions": // a server that keeps the suffix
			replay(keepsSuffix(completions))(w, r)
		case r.URL.Path == "/v1/completions" && strings.Contains(string(body), `"stream":true`):
			replay(completions)(w, r)
		case r.URL.Path == "/v1/completions":
			replay(whole)(w, r)
		case r.URL.Path == "/server_info" && info != nil:
			info.ServeHTTP(w, r)
		case r.URL.Path == "/get_server_info" && old != nil:
			old.ServeHTTP(w, r)
		default:
			http.Error(w, `{"detail":"Not Found"}`, http.StatusNotFound)
		}
	})
	return tokenpace.NewClient(openaiClient(url, hc)), counts
}

// TestSGLangFillInTheMiddle: SGLang started without --completion-template
// drops a suffix and answers a completion of the prompt alone, 200; with
// one, it fills in the middle; the answers look the same. Its answers have
// a shape of their own (matched_stop on every choice), and its
// /server_info names the template, null for none. The caller of a
// fill-in-the-middle request to SGLang without a template gets a
// KindRequest refusal naming SGLang and the suffix, no text, after the
// one request and one look at /server_info for every request of a minute
// (before: the completion of the prompt alone, as a success). With a
// template the answer is the caller's, as before; a request without a
// suffix never looks.
func TestSGLangFillInTheMiddle(t *testing.T) {
	stream := loadRecording(t, "sglang-2026-completions-suffix-stream.jsonl")
	req := fim("qwen/qwen2.5-0.5b-instruct", "def add(a, b):\n", "\n    return c\n")
	noSuffix := req
	noSuffix.Suffix = openai.String("")

	t.Run("without template", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, counts := serveSGLang(t, stream, replay(loadRecording(t, "sglang-2026-server-info.jsonl")), nil)
			for i := range 3 {
				checkRefusedByName(t, c, req, "SGLang ignores suffix", fmt.Sprintf("request %d", i))
			}
			if counts.of("/v1/completions") != 6 || counts.of("/server_info") != 1 {
				t.Errorf("requests %v; want 6 to /v1/completions and one look at /server_info", counts)
			}
			checkSGLangAnswers(t, c, noSuffix, stream, "no suffix")
			if counts.of("/server_info") != 1 {
				t.Errorf("requests without a suffix looked at /server_info: %v", counts)
			}
			// A Router falls back to a route that keeps the suffix.
			rt, err := tokenpace.NewRouter(c, tokenpace.Policy{}, tokenpace.Route{Name: "sglang"},
				tokenpace.Route{Name: "keeps", Options: []option.RequestOption{option.WithBaseURL("http://replay.invalid/keeps/v1/")}})
			if err != nil {
				t.Fatal(err)
			}
			s := rt.NewCompletionStreaming(context.Background(), req)
			if text, _ := readCompletion(s, s.Timing().Start); s.Err() != nil || text != recordedCompletionText(t, stream) || len(s.Timing().Attempts) != 2 {
				t.Errorf("Router: text %q, err %v, %d attempts; want the other route's answer after SGLang's refusal", text, s.Err(), len(s.Timing().Attempts))
			}
			// A minute on, the server may have been started again with a
			// template: it is looked at again.
			time.Sleep(2 * time.Minute)
			checkRefusedByName(t, c, req, "SGLang ignores suffix", "two minutes on")
			if counts.of("/server_info") != 2 {
				t.Errorf("requests %v; want a second look at /server_info", counts)
			}
		})
	})

	t.Run("with template", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, counts := serveSGLang(t, stream, replay(loadRecording(t, "sglang-2026-server-info-template.jsonl")), nil)
			for i := range 3 {
				checkSGLangAnswers(t, c, req, stream, fmt.Sprintf("request %d", i))
			}
			if counts.of("/server_info") != 1 {
				t.Errorf("requests %v; want one look at /server_info", counts)
			}
		})
	})

	t.Run("older build, /get_server_info", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, counts := serveSGLang(t, stream, nil, replay(loadRecording(t, "sglang-2026-server-info.jsonl")))
			checkRefusedByName(t, c, req, "SGLang ignores suffix", "older build")
			if counts.of("/server_info") != 1 || counts.of("/get_server_info") != 1 {
				t.Errorf("requests %v; want one look at each info path", counts)
			}
		})
	})

	t.Run("another server", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			other := keepsSuffix(stream)
			c, counts := serveSGLang(t, other, replay(loadRecording(t, "sglang-2026-server-info.jsonl")), nil)
			s := c.NewCompletionStreaming(context.Background(), req)
			if text, _ := readCompletion(s, s.Timing().Start); s.Err() != nil || text != recordedCompletionText(t, other) {
				t.Errorf("stream: text %q, err %v; want the server's answer", text, s.Err())
			}
			if counts.of("/server_info")+counts.of("/get_server_info") != 0 {
				t.Errorf("requests %v; want no look at any info path", counts)
			}
		})
	})

	// A look that fails says nothing: the answer is the caller's, as
	// before, and the call neither hangs nor leaks.
	notFound := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	hangs := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	notJSON := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>a relay's web page</html>"))
	})
	for _, tc := range []struct {
		name      string
		info, old http.Handler
		looks     int // requests to an info path, the first call's and the second's
	}{
		{"404", notFound, notFound, 2},
		{"hangs", hangs, nil, 1},
		{"web page", notJSON, nil, 1},
	} {
		t.Run("look fails: "+tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, counts := serveSGLang(t, stream, tc.info, tc.old)
				for i := range 2 {
					checkSGLangAnswers(t, c, req, stream, fmt.Sprintf("request %d", i))
				}
				if n := counts.of("/server_info") + counts.of("/get_server_info"); n != tc.looks {
					t.Errorf("requests %v; want %d looks at the info paths, for both requests", counts, tc.looks)
				}
			})
		})
	}

	// A caller that gives up during the look (its own deadline, or a TTFT
	// budget shorter than the look) gets its cancellation, not a refusal;
	// the look goes on without it, and what it finds holds for the next
	// request, which does not wait again.
	t.Run("caller gives up during the look", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			slow := loadRecording(t, "sglang-2026-server-info.jsonl")
			slow.HeadersMS, slow.Reads[0].TMS = 1000, 1000.3
			c, counts := serveSGLang(t, stream, replay(slow), nil)
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			s := c.NewCompletionStreaming(ctx, req)
			text, _ := readCompletion(s, s.Timing().Start)
			var se *tokenpace.StreamError
			if !errors.Is(s.Err(), context.DeadlineExceeded) || errors.As(s.Err(), &se) && se.Kind == tokenpace.KindRequest || text != "" {
				t.Errorf("stream: text %q, err %v; want the caller's deadline, no text and no refusal", text, s.Err())
			}
			ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			if res, err := c.NewCompletion(ctx, req); !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &se) && se.Kind == tokenpace.KindRequest {
				t.Errorf("whole: %+v, err %v; want the caller's deadline and no refusal", res, err)
			}
			time.Sleep(time.Second)
			start := time.Now()
			checkRefusedByName(t, c, req, "SGLang ignores suffix", "next request")
			if counts.of("/server_info") != 1 || time.Since(start) > time.Second {
				t.Errorf("requests %v in %v; want the one look, not waited for again", counts, time.Since(start))
			}
		})
	})
}

// keepsSuffix returns rec as vLLM would have sent it: stop_reason where
// SGLang has matched_stop.
func keepsSuffix(rec recording) recording {
	out := rec
	out.Reads = make([]recordedRead, len(rec.Reads))
	for i, rd := range rec.Reads {
		rd.Data = strings.ReplaceAll(rd.Data, `"matched_stop"`, `"stop_reason"`)
		out.Reads[i] = rd
	}
	return out
}

// checkSGLangAnswers checks that req, streamed and not, gets SGLang's
// answer as recorded, with no error.
func checkSGLangAnswers(t *testing.T, c *tokenpace.Client, req openai.CompletionNewParams, stream recording, what string) {
	t.Helper()
	ctx := context.Background()
	s := c.NewCompletionStreaming(ctx, req)
	if text, _ := readCompletion(s, s.Timing().Start); s.Err() != nil || text != recordedCompletionText(t, stream) {
		t.Errorf("%s: stream: text %q, err %v; want the server's answer %q", what, text, s.Err(), recordedCompletionText(t, stream))
	}
	res, err := c.NewCompletion(ctx, req)
	if err != nil || len(res.Choices) != 1 || res.Choices[0].Text != recordedCompletionText(t, stream) {
		t.Errorf("%s: whole: %+v, err %v; want the server's answer", what, res, err)
	}
}
