package tokenpace_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// oldAzure emulates Azure OpenAI before API version 2024-10-21: a request
// that holds stream_options is refused with the 400 Azure sends; any
// other streams its answer, without usage. It records the bodies it was
// sent.
type oldAzure struct {
	mu     sync.Mutex
	bodies []string
}

func (s *oldAzure) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(b))
	s.mu.Unlock()
	if strings.Contains(string(b), "stream_options") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"message":"Unknown parameter: 'stream_options'.","type":"invalid_request_error","param":"stream_options","code":"unknown_parameter"}}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, chunk("c", "Hello", "", "")+chunk("c", " there.", "stop", "")+"data: [DONE]\n\n")
}

// sent returns the bodies sent since the last call, and whether each held
// stream_options.
func (s *oldAzure) sent() []bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []bool
	for _, b := range s.bodies {
		out = append(out, strings.Contains(b, "stream_options"))
	}
	s.bodies = nil
	return out
}

// A server that refuses stream_options, which the client adds to ask for
// usage, gets the request again at once without it, and later requests go
// without it: the caller gets its answer, as through bare openai-go,
// which sends no such field. A caller that set the field itself gets the
// server's refusal, as through openai-go.
func TestServerRefusesStreamOptions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := new(oldAzure)
		url, hc := serve(t, srv)
		azure := func(version string) *tokenpace.Client {
			return tokenpace.NewClient(openai.NewClient(option.WithBaseURL(url), option.WithHTTPClient(hc), option.WithAPIKey("x"),
				option.WithMaxRetries(0), option.WithQuery("api-version", version)))
		}
		c := azure("2024-06-01")
		read := func(s *tokenpace.Stream[openai.ChatCompletionChunk]) (string, *tokenpace.Timing) {
			text := readAll(t, s)
			return text, s.Timing()
		}

		text, tm := read(c.NewStreaming(context.Background(), chat("gpt-4o", 16)))
		if err := tm.Err; err != nil || text != "Hello there." {
			t.Fatalf("read %q, Err %v; want %q and nil", text, err, "Hello there.")
		}
		if got, sent := statuses(tm), srv.sent(); !slices.Equal(got, []int{400, 200}) || !slices.Equal(sent, []bool{true, false}) {
			t.Errorf("HTTP statuses %v, stream_options sent %v; want [400 200] and [true false]", got, sent)
		}
		if tm.UsageReported || tm.OutputTokens != 2 {
			t.Errorf("usage reported %v, %d output tokens; want the 2 output deltas counted", tm.UsageReported, tm.OutputTokens)
		}

		// Later requests, a completion's too, go without it at once.
		text, tm = read(c.NewStreaming(context.Background(), chat("gpt-4o", 16)))
		if got, sent := statuses(tm), srv.sent(); text != "Hello there." || !slices.Equal(got, []int{200}) || !slices.Equal(sent, []bool{false}) {
			t.Errorf("second call: read %q, HTTP statuses %v, stream_options sent %v; want one request without it", text, got, sent)
		}
		cs := c.NewCompletionStreaming(context.Background(), openai.CompletionNewParams{Model: "gpt-4o",
			Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("Hi")}})
		for cs.Next() {
		}
		cs.Close()
		if sent := srv.sent(); !slices.Equal(sent, []bool{false}) {
			t.Errorf("a completion sent stream_options %v, want [false]", sent)
		}

		// A caller that asked for usage itself is refused.
		p := chat("gpt-4o", 16)
		p.StreamOptions.IncludeUsage = openai.Bool(true)
		_, tm = read(c.NewStreaming(context.Background(), p))
		var oe *openai.Error
		if checkKind(t, tm.Err, tokenpace.KindRequest); !errors.As(tm.Err, &oe) || oe.StatusCode != 400 || len(tm.HTTP) != 1 {
			t.Errorf("Err %v after %d requests, want the server's 400 after one", tm.Err, len(tm.HTTP))
		}
		srv.sent()

		// Another API version of the same server is asked with it again
		// (by a client of its own: each client learns apart).
		_, tm = read(azure("2024-10-21").NewStreaming(context.Background(), chat("gpt-4o", 16)))
		if got := statuses(tm); !slices.Equal(got, []int{400, 200}) {
			t.Errorf("a new client: HTTP statuses %v, want [400 200]", got)
		}
	})
}

// A 400 that does not name stream_options is the caller's error: the
// request is not sent again.
func TestOtherBadRequestNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":{"message":"Unrecognized request argument supplied: logit_bias","type":"invalid_request_error"}}`)
		}))
		s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("gpt-4o", 16))
		readAll(t, s)
		checkKind(t, s.Err(), tokenpace.KindRequest)
		if got := statuses(s.Timing()); !slices.Equal(got, []int{400}) {
			t.Errorf("HTTP statuses %v, want [400]", got)
		}
	})
}
