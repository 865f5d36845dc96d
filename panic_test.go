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
)

// slowWords is a handler that streams "w1 w2 w3." one word every 10 ms.
var slowWords = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	for _, part := range []string{chunk("c", "w1", "", ""), chunk("c", " w2", "", ""), chunk("c", " w3.", "stop", ""), "data: [DONE]\n\n"} {
		time.Sleep(10 * time.Millisecond)
		_, _ = io.WriteString(w, part)
		_ = rc.Flush()
	}
})

func boom() { panic("boom") }

// panicking lists, for each function of the caller's that may panic, the
// Client options and request options that make it panic.
var panicking = []struct {
	name       string
	opts       []tokenpace.Option
	reqOpts    []option.RequestOption
	validator  func(string) error
	wantDetail string
	read       string // what the caller reads before the error
}{
	{name: "FirstToken", opts: []tokenpace.Option{tokenpace.WithHooks(tokenpace.Hooks{FirstToken: func(context.Context, tokenpace.FirstTokenInfo) { boom() }})},
		wantDetail: "FirstToken hook", read: "w1"},
	{name: "Milestone", opts: []tokenpace.Option{tokenpace.WithHooks(tokenpace.Hooks{Milestone: func(context.Context, tokenpace.MilestoneInfo) { boom() }})},
		wantDetail: "Milestone hook", read: "w1 w2 w3."},
	{name: "milestone predicate", opts: []tokenpace.Option{tokenpace.WithMilestone("two", func(text string) bool {
		if strings.Contains(text, "w2") {
			boom()
		}
		return false
	})}, wantDetail: "milestone predicate", read: "w1 w2"},
	{name: "Done", opts: []tokenpace.Option{tokenpace.WithHooks(tokenpace.Hooks{Done: func(context.Context, *tokenpace.Timing) { boom() }})},
		wantDetail: "Done hook", read: "w1 w2 w3."},
	{name: "middleware", reqOpts: []option.RequestOption{option.WithMiddleware(func(*http.Request, option.MiddlewareNext) (*http.Response, error) {
		boom()
		return nil, nil
	})}, wantDetail: "middleware"},
}

// A panic in a function of the caller's never crashes the program nor
// hangs Close: the call ends with a KindPanic error, the output read so
// far kept, whether the caller reads the body itself or is away (a
// background reader's goroutine) or calls through a Router.
func TestPanicInCallersCode(t *testing.T) {
	for _, tt := range panicking {
		for _, pause := range []time.Duration{0, 50 * time.Millisecond} {
			t.Run(tt.name+"/pause "+pause.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					url, hc := serve(t, slowWords)
					s := tokenpace.NewClient(openaiClient(url, hc), tt.opts...).NewStreaming(context.Background(), chat("m", 10), tt.reqOpts...)
					checkPanic(t, "Client", s, pause, tt.read, tt.wantDetail)
				})
			})
		}
		t.Run(tt.name+"/Router", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, slowWords)
				tp := tokenpace.NewClient(openaiClient(url, hc), tt.opts...)
				r, err := tokenpace.NewRouter(tp, tokenpace.Policy{}, route("first"), route("second"))
				if err != nil {
					t.Fatal(err)
				}
				s := r.NewStreaming(context.Background(), chat("first", 10), tt.reqOpts...)
				checkPanic(t, "Router", s, 0, tt.read, tt.wantDetail)
				if tt.name != "middleware" {
					if got := len(s.Timing().Attempts); got != 1 {
						t.Errorf("Router: %d attempts, want 1: a panic is no route's fault", got)
					}
				}
			})
		})
	}
}

// checkPanic reads s to its end, pausing after each chunk, and checks what
// the caller read and that the call ended with a KindPanic error.
func checkPanic(t *testing.T, who string, s *tokenpace.Stream[openai.ChatCompletionChunk], pause time.Duration, read, detail string) {
	t.Helper()
	var b strings.Builder
	for s.Next() {
		for _, ch := range s.Current().Choices {
			b.WriteString(ch.Delta.Content)
		}
		time.Sleep(pause)
	}
	if err := s.Close(); err != nil {
		t.Errorf("%s: Close() = %v", who, err)
	}
	if got := b.String(); got != read {
		t.Errorf("%s: read %q, want %q", who, got, read)
	}
	var se *tokenpace.StreamError
	if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindPanic || se.Detail != detail || !strings.Contains(se.Error(), "boom") {
		t.Errorf("%s: Err() = %v, want a KindPanic *StreamError in %q", who, s.Err(), detail)
	}
	if !errors.Is(s.Timing().Err, s.Err()) {
		t.Errorf("%s: Timing().Err = %v, want %v", who, s.Timing().Err, s.Err())
	}
}

// A Validator that panics rejects the output it was given, as one that
// returned the panic as its error.
func TestPanicInValidator(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, slowWords)
		p := tokenpace.Policy{Validator: func(string) error { boom(); return nil }}
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), p, route("first"))
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewStreaming(context.Background(), chat("first", 10))
		if got := readAll(t, s); got != "w1 w2 w3." {
			t.Errorf("read %q, want %q", got, "w1 w2 w3.")
		}
		var ve, se *tokenpace.StreamError
		if !errors.As(s.Err(), &ve) || ve.Kind != tokenpace.KindInvalid || !errors.As(ve.Err, &se) || se.Kind != tokenpace.KindPanic {
			t.Errorf("Err() = %v, want a KindInvalid *StreamError of a KindPanic error", s.Err())
		}
		if got := outcomes(s.Timing()); len(got) != 1 || got[0] != tokenpace.OutcomeInvalid {
			t.Errorf("outcomes %v, want [invalid]", got)
		}
	})
}
