package simulate_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tokenpace/tokenpace/simulate"
)

// fuzzRequests feeds bodies to path of one server and checks that each
// gets a well-formed answer: an OpenAI-style JSON error with a 4xx status,
// or a 200 whose body is JSON or a stream of events. Output is capped at 8
// tokens so that each execution stays fast.
//
//	go test -run XXX -fuzz FuzzChatRequest -fuzztime 15s ./simulate/
func fuzzRequests(f *testing.F, path string, seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	s, err := simulate.NewServer(simulate.WithModel("m", &simulate.Fixed{}), simulate.WithMaxTokensLimit(8),
		simulate.WithMaxTokens(8), simulate.WithMaxBodyBytes(1<<16))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, body string) {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
		got := w.Body.String()
		switch {
		case w.Code == http.StatusOK && strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream"):
			sc := bufio.NewScanner(strings.NewReader(got))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				line := sc.Text()
				data, ok := strings.CutPrefix(line, "data: ")
				if ok && data != "[DONE]" && !json.Valid([]byte(data)) {
					t.Fatalf("POST %s %q: event data %q is not JSON", path, body, data)
				}
				if !ok && line != "" && !strings.HasPrefix(line, "event: ") {
					t.Fatalf("POST %s %q: stream line %q", path, body, line)
				}
			}
		case w.Code == http.StatusOK:
			if !json.Valid([]byte(got)) {
				t.Fatalf("POST %s %q = 200 with body %q, want JSON", path, body, got)
			}
		case w.Code >= 400 && w.Code < 500:
			var e struct {
				Error *struct {
					Message string `json:"message"`
					Type    string `json:"type"`
				} `json:"error"`
			}
			if json.Unmarshal([]byte(got), &e) != nil || e.Error == nil || e.Error.Message == "" || e.Error.Type == "" {
				t.Fatalf("POST %s %q = %d with body %q, want an OpenAI-style error", path, body, w.Code, got)
			}
		default:
			t.Fatalf("POST %s %q = %d %q, want 200 or 4xx", path, body, w.Code, got)
		}
	})
}

func FuzzChatRequest(f *testing.F) {
	fuzzRequests(f, "/v1/chat/completions",
		`{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","stream":true,"stream_options":{"include_usage":true},"max_tokens":3,"messages":[{"role":"user","content":[{"type":"text","text":"a"}]}]}`,
		`{"model":"m","stop":["a","b"],"seed":7,"messages":[{"role":"system","content":null},{"role":"user","content":"x"}]}`,
		`{"model":"m","n":2,"messages":[]}`,
		`{"model":"m","tools":[{"type":"function","function":{"name":"f"}}],"messages":[{"role":"user","content":"x"}]}`,
		`{"model":`)
}

func FuzzCompletionsRequest(f *testing.F) {
	fuzzRequests(f, "/v1/completions",
		`{"model":"m","prompt":"def f(","suffix":"\n    return x"}`,
		`{"model":"m","prompt":[1,2,3],"stream":true,"max_tokens":2}`,
		`{"model":"m","prompt":["one"],"stop":"\n"}`,
		`{"model":"m","prompt":[1,2.5]}`,
		`{"model":"m","prompt":[-0, 99999999999999999999]}`)
}

func FuzzResponsesRequest(f *testing.F) {
	fuzzRequests(f, "/v1/responses",
		`{"model":"m","input":"hi"}`,
		`{"model":"m","stream":true,"max_output_tokens":2,"instructions":"be brief","input":[{"role":"user","content":[{"type":"input_text","text":"a"}]}]}`,
		`{"model":"m","input":[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"42"}]}`,
		`{"model":"m","input":[]}`)
}

func FuzzParseFault(f *testing.F) {
	for _, s := range []string{"429;for=3s", "stall;for=2s;after=5", "reset;after=1", "oversized;size=100;after=2",
		"none", "slow-headers;for=1ms", "429;for=9223369200s", " truncated ; after=3", "error-event;after=0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := simulate.ParseFault(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "simulate: ") {
				t.Fatalf("ParseFault(%q) error %q, want the simulate: prefix", s, err)
			}
			return
		}
		if got.After < 0 || got.For < 0 || got.For > simulate.MaxFaultDuration || got.Size < 0 || got.Size > simulate.MaxOversizedBytes {
			t.Fatalf("ParseFault(%q) = %+v, out of bounds", s, got)
		}
		if name := got.Kind.String(); strings.HasPrefix(name, "FaultKind(") {
			t.Fatalf("ParseFault(%q) = kind %v, not a named fault", s, got.Kind)
		}
	})
}
