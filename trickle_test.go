package tokenpace_test

import (
	"context"
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

// trickleBody gives head at once, then one byte of an event-stream
// comment a minute, n of them, then EOF; a read ends with the request's
// context.
type trickleBody struct {
	ctx  context.Context
	head *strings.Reader
	n    int
}

func (b *trickleBody) Read(p []byte) (int, error) {
	if b.head.Len() > 0 {
		return b.head.Read(p)
	}
	if b.n == 0 {
		return 0, io.EOF
	}
	select {
	case <-time.After(time.Minute):
	case <-b.ctx.Done():
		return 0, b.ctx.Err()
	}
	b.n--
	if b.n%2 == 0 {
		p[0] = '\n'
	} else {
		p[0] = ':'
	}
	return 1, nil
}

func (b *trickleBody) Close() error { return nil }

type trickleTransport string

func (h trickleTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Request: r,
		Body: &trickleBody{ctx: r.Context(), head: strings.NewReader(string(h)), n: 120}}, nil
}

// TestTrickleAfterAnswer: a server that, its answer sent, trickles one
// byte of a comment a minute for two hours instead of [DONE]. Before a
// token TTFT ends it, after one Gap does (the breach the caller gets).
// Once the answer was complete (every choice finished, its usage sent or
// not) no budget ran on: the caller's loop took the two hours, an E2E
// budget of a second too, and an endless trickle would have held it for
// ever. The deadline now ends the stream cleanly, the answer whole and no
// breach, as a body that ends without [DONE] does.
func TestTrickleAfterAnswer(t *testing.T) {
	tok := `data: {"id":"c","choices":[{"index":0,"delta":{"content":"x"}}]}` + "\n\n"
	fin := `data: {"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	usage := `data: {"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}` + "\n\n"
	for _, tt := range []struct {
		name   string
		head   string
		b      tokenpace.Budget
		text   string
		breach tokenpace.Phase // "" for none
		end    time.Duration
	}{
		{"before a token, TTFT", "", tokenpace.Budget{TTFT: time.Second}, "", tokenpace.PhaseTTFT, time.Second},
		{"after a token, Gap", tok, tokenpace.Budget{Gap: time.Second}, "x", tokenpace.PhaseGap, time.Second},
		{"after the finish, Gap", tok + tok + fin, tokenpace.Budget{Gap: time.Second}, "xx", "", time.Second},
		{"after the usage, Gap", tok + tok + fin + usage, tokenpace.Budget{Gap: time.Second}, "xx", "", time.Second},
		{"after the usage, E2E", tok + tok + fin + usage, tokenpace.Budget{E2E: time.Second}, "xx", "", time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				oc := openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("x"),
					option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: trickleTransport(tt.head)}))
				r, err := tokenpace.NewRouter(tokenpace.NewClient(oc), tokenpace.Policy{Budget: tt.b}, route("m"))
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				s := r.NewStreaming(context.Background(), chat("m", 10))
				text := ""
				for s.Next() {
					for _, c := range s.Current().Choices {
						text += c.Delta.Content
					}
				}
				if end := time.Since(start); end != tt.end {
					t.Errorf("stream ended after %v, want %v", end, tt.end)
				}
				if text != tt.text {
					t.Errorf("text = %q, want %q", text, tt.text)
				}
				var be *tokenpace.BudgetError
				switch err := s.Err(); {
				case tt.breach == "" && err != nil:
					t.Errorf("Err() = %v, want nil", err)
				case tt.breach != "" && (!errorsAs(err, &be) || be.Phase != tt.breach):
					t.Errorf("Err() = %v, want a %s breach", err, tt.breach)
				}
				closing := time.Now()
				_ = s.Close()
				if d := time.Since(closing); d != 0 {
					t.Errorf("Close took %v, want 0", d)
				}
				if tt.breach == "" && len(s.Timing().Breaches) != 0 {
					t.Errorf("Breaches = %v, want none", s.Timing().Breaches)
				}
			})
		})
	}
}
