package tokenpace_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
)

// TestLlamaCppPythonBuildsThatKeepTheSuffix: llama-cpp-python's server
// frames a suffix with the model's fill-in-the-middle tokens from 0.2.70
// to 0.3.6, and gives the model token 0 in their place since 0.3.7
// (abetlen/llama-cpp-python llama_cpp/llama.py, _create_completion);
// JamePeng's fork (JamePeng/llama-cpp-python, 77146b9, June 2025; 0.3.48
// of August 2026) put the model's tokens back, under the same server,
// ids and answers. Their /openapi.json (FastAPI's, titled "🦙 llama.cpp
// Python API", llama_cpp/server/app.py) gives the version, and the
// fork's completion request names a present_penalty since its 0.3.24
// (1e6094a, llama_cpp/server/types.py), where upstream's names
// presence_penalty. The answers served are llama-cpp-python's recorded
// ones (testdata/llamacpppython-2026-completions-suffix-*.jsonl): the
// fork's have the same members in the same order; their words are the
// recording's. The caller of a build that keeps the suffix gets its
// answer, streamed and not, after one request, its schema read once a
// minute; a caller whose deadline falls during that read gets its
// deadline, and the read goes on for the next request; the caller of upstream's 0.3.35, or of a server whose schema is
// not found (a relay), gets the refusal by name, and a Router goes on to
// a route that keeps the suffix, its breaker closed.
func TestLlamaCppPythonBuildsThatKeepTheSuffix(t *testing.T) {
	schema := func(version, penalty string) string {
		return `{"openapi":"3.1.0","info":{"title":"🦙 llama.cpp Python API","version":"` + version + `"},"paths":{},` +
			`"components":{"schemas":{"CreateCompletionRequest":{"properties":{"` + penalty + `":{"title":"Penalty"}},"type":"object","title":"CreateCompletionRequest"}}}}`
	}
	schemas := map[string]string{
		"fork":     schema("0.3.48", "present_penalty"),
		"slow":     schema("0.3.48", "present_penalty"),
		"slower":   schema("0.3.48", "present_penalty"),
		"old":      schema("0.3.6", "presence_penalty"),
		"upstream": schema("0.3.35", "presence_penalty"),
	}
	synctest.Test(t, func(t *testing.T) {
		stream := loadRecording(t, "llamacpppython-2026-completions-suffix-stream.jsonl")
		whole := loadRecording(t, "llamacpppython-2026-completions-suffix-nostream.jsonl")
		keeps := anotherServer(loadRecording(t, "llamacpp-2026-completions-suffix-stream.jsonl"))
		keeps.Headers = map[string]string{"content-type": "text/event-stream"}
		_, hc, counts := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			server, path, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
			switch {
			case server == "keeps":
				replay(keeps)(w, r)
			case path == "openapi.json" && strings.HasPrefix(server, "slow"):
				time.Sleep(time.Second)
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, schemas[server])
			case path == "openapi.json" && schemas[server] != "":
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, schemas[server])
			case path == "openapi.json":
				http.NotFound(w, r)
			case strings.Contains(string(body), `"stream":true`):
				replay(stream)(w, r)
			default:
				replay(whole)(w, r)
			}
		})
		client := func(server string) *tokenpace.Client {
			return tokenpace.NewClient(openai.NewClient(option.WithBaseURL("http://"+server+".invalid/"+server+"/v1/"), option.WithHTTPClient(hc),
				option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(0)))
		}
		ctx := context.Background()
		req := fim("qwen2.5-coder-1.5b", "def add(a, b):\n", "\n    return c\n")

		for _, server := range []string{"fork", "old"} {
			c := client(server)
			for i := range 3 {
				s := c.NewCompletionStreaming(ctx, req)
				if text, _ := readCompletion(s, s.Timing().Start); s.Err() != nil || text != recordedCompletionText(t, stream) || len(s.Timing().HTTP) != 1 {
					t.Errorf("%s, stream %d: text %q, err %v, %d HTTP tries; want the server's answer after one", server, i, text, s.Err(), len(s.Timing().HTTP))
				}
				r, err := c.NewCompletion(ctx, req)
				if err != nil || len(r.Choices) != 1 || r.Choices[0].Text != "\n\ndef sub(a, b):" {
					t.Errorf("%s, whole %d: %+v, %v; want the server's answer", server, i, r, err)
				}
			}
			if n := counts.of("/" + server + "/openapi.json"); n != 1 {
				t.Errorf("%s: /openapi.json asked %d times, want once within the minute", server, n)
			}
		}

		// A caller that gives up during the look (its deadline after the
		// first event, at 95 ms, or the whole answer, at 330 ms, and before
		// the schema, at 1 s) gets its cancellation, not a refusal; the
		// look goes on, and holds for the next request.
		slow, slower := client("slow"), client("slower")
		tctx, cancel := context.WithTimeout(ctx, 600*time.Millisecond)
		s := slow.NewCompletionStreaming(tctx, req)
		text, _ := readCompletion(s, s.Timing().Start)
		var se *tokenpace.StreamError
		if !errors.Is(s.Err(), context.DeadlineExceeded) || errors.As(s.Err(), &se) && strings.Contains(se.Error(), "ignores suffix") || text != "" {
			t.Errorf("slow schema, stream: text %q, err %v; want the caller's deadline, no text and no refusal", text, s.Err())
		}
		cancel()
		tctx, cancel = context.WithTimeout(ctx, 600*time.Millisecond)
		if r, err := slower.NewCompletion(tctx, req); !errors.Is(err, context.DeadlineExceeded) || err != nil && strings.Contains(err.Error(), "ignores suffix") {
			t.Errorf("slow schema, whole: %+v, %v; want the caller's deadline and no refusal", r, err)
		}
		cancel()
		time.Sleep(time.Second)
		s = slow.NewCompletionStreaming(ctx, req)
		if text, _ := readCompletion(s, s.Timing().Start); s.Err() != nil || text != recordedCompletionText(t, stream) || counts.of("/slow/openapi.json") != 1 {
			t.Errorf("slow schema, next request: text %q, err %v, %v; want the server's answer on the one look", text, s.Err(), counts)
		}
		if r, err := slower.NewCompletion(ctx, req); err != nil || len(r.Choices) != 1 || counts.of("/slower/openapi.json") != 1 {
			t.Errorf("slower schema, next request: %v, %v; want the server's answer on the one look", err, counts)
		}

		for _, server := range []string{"upstream", "relay"} {
			checkRefusedByName(t, client(server), req, "llama-cpp-python's server ignores suffix", server)
		}

		rt, err := tokenpace.NewRouter(client("upstream"), tokenpace.Policy{},
			tokenpace.Route{Name: "upstream"},
			tokenpace.Route{Name: "keeps", Options: []option.RequestOption{option.WithBaseURL("http://keeps.invalid/keeps/v1/")}})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 8 { // more than the 5 failures that open a breaker
			s := rt.NewCompletionStreaming(ctx, req)
			text, _ := readCompletion(s, s.Timing().Start)
			a := s.Timing().Attempts
			var se *tokenpace.StreamError
			if s.Err() != nil || text != recordedCompletionText(t, keeps) || len(a) != 2 ||
				!errors.As(a[0].Err, &se) || se.Kind != tokenpace.KindRequest || a[1].Err != nil || s.Timing().Err != nil {
				t.Fatalf("Router call %d: text %q, err %v, attempts %s; want the suffix-keeping route's answer after upstream's KindRequest refusal", i, text, s.Err(), attemptsOf(a))
			}
		}
		if st, ok := rt.BreakerState("upstream"); !ok || st != gobreaker.StateClosed {
			t.Errorf("upstream's breaker %v after refusals, want closed", st)
		}
		s = client("upstream").NewCompletionStreaming(ctx, req)
		if _, _ = readCompletion(s, s.Timing().Start); !errors.As(s.Timing().Err, &se) || se.Kind != tokenpace.KindRequest || !strings.Contains(se.Error(), "ignores suffix") {
			t.Errorf("one route: Timing.Err %v, want the KindRequest refusal of the suffix", s.Timing().Err)
		}
	})
}

// attemptsOf formats a, a Timing's attempts, for a test's message.
func attemptsOf(a []tokenpace.Attempt) string {
	var b strings.Builder
	for _, x := range a {
		fmt.Fprintf(&b, "[%s %v] ", x.Target, x.Err)
	}
	return b.String()
}
