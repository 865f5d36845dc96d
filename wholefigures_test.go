package tokenpace_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestWholeFiguresClientAndRouter: the same non-streaming call gives its
// caller the same figures through Client.New and Router.New (and their
// completions and Responses twins). No token is visible before the whole
// answer, so neither has a first token, chunks or milestones, and no
// FirstToken hook runs: E2E is the whole answer's time, and the output
// tokens are the server's usage, 0 without one. A Router attempt keeps
// the tokens it answered with, and no first token either.
func TestWholeFiguresClientAndRouter(t *testing.T) {
	const sim = 100*time.Millisecond + 11*20*time.Millisecond // 12 tokens
	noUsage := jsonAnswer(`{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi. How are you?"},"finish_reason":"stop"}]}`)
	pending := jsonAnswer(`{"id":"resp_1","object":"response","created_at":1,"status":"queued","background":true,"model":"m","output":[]}`)
	tests := []struct {
		name   string
		client func(t *testing.T) *tokenpace.Client
		call   func(ctx context.Context, c interface{ wholeCaller }, opts ...option.RequestOption) error
		tokens int
		e2e    time.Duration
	}{
		{name: "chat", client: simWhole, call: callChat, tokens: 12, e2e: sim},
		{name: "completion", client: simWhole, call: callCompletion, tokens: 12, e2e: sim},
		{name: "response", client: simWhole, call: callResponse, tokens: 12, e2e: sim},
		{name: "chat without usage", client: handlerClient(noUsage), call: callChat, tokens: 0},
		{name: "pending background response", client: handlerClient(pending), call: callBackground, tokens: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var firsts []string
				ctx := tokenpace.ContextWithHooks(context.Background(), tokenpace.Hooks{
					FirstToken: func(_ context.Context, fi tokenpace.FirstTokenInfo) { firsts = append(firsts, fi.Target) },
				})
				c := tt.client(t)
				r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, tokenpace.Route{Name: "m"})
				if err != nil {
					t.Fatal(err)
				}
				for _, via := range []struct {
					name string
					wc   wholeCaller
				}{{"Client", c}, {"Router", r}} {
					var tm *tokenpace.Timing
					if err := tt.call(ctx, via.wc, tokenpace.WithTimingInto(&tm)); err != nil {
						t.Fatalf("%s: call error = %v", via.name, err)
					}
					if tm.Stream || tm.TTFT() != 0 || tm.UserTTFT() != 0 || len(tm.Chunks) != 0 || tm.OutputChunks != 0 ||
						!tm.FirstChunk.IsZero() || !tm.LastChunk.IsZero() || len(tm.Milestones) != 0 {
						t.Errorf("%s: Stream %v, TTFT %v, UserTTFT %v, %d chunks (%d), FirstChunk set %v, LastChunk set %v, milestones %v; want false, 0, 0, 0 (0), false, false, none",
							via.name, tm.Stream, tm.TTFT(), tm.UserTTFT(), len(tm.Chunks), tm.OutputChunks,
							!tm.FirstChunk.IsZero(), !tm.LastChunk.IsZero(), tm.Milestones)
					}
					if tm.OutputTokens != tt.tokens || tm.TPOT() != 0 || tm.TPS() != 0 || tm.MaxGap() != 0 {
						t.Errorf("%s: OutputTokens %d, TPOT %v, TPS %v, MaxGap %v; want %d, 0, 0, 0",
							via.name, tm.OutputTokens, tm.TPOT(), tm.TPS(), tm.MaxGap(), tt.tokens)
					}
					if tt.e2e > 0 && tm.E2E() != tt.e2e {
						t.Errorf("%s: E2E() = %v, want %v", via.name, tm.E2E(), tt.e2e)
					}
					if via.name == "Router" {
						if len(tm.Attempts) != 1 {
							t.Fatalf("Router: %d attempts, want 1", len(tm.Attempts))
						}
						a := tm.Attempts[0]
						if a.Outcome != tokenpace.OutcomeWon || !a.FirstToken.IsZero() || a.TTFT() != 0 || a.Tokens != tt.tokens ||
							a.End != tm.End || a.Sent != tm.Sent {
							t.Errorf("Router attempt: %s, FirstToken set %v, TTFT %v, Tokens %d, End %v, Sent %v; want won, false, 0, %d, the call's %v and %v",
								a.Outcome, !a.FirstToken.IsZero(), a.TTFT(), a.Tokens, a.End, a.Sent, tt.tokens, tm.End, tm.Sent)
						}
					}
				}
				if len(firsts) != 0 {
					t.Errorf("FirstToken hook ran for %q, want never: no token showed before the whole answer", firsts)
				}
			})
		})
	}
}

// wholeCaller is what Client and Router have in common: the three
// non-streaming calls.
type wholeCaller interface {
	New(context.Context, openai.ChatCompletionNewParams, ...option.RequestOption) (*openai.ChatCompletion, error)
	NewCompletion(context.Context, openai.CompletionNewParams, ...option.RequestOption) (*openai.Completion, error)
	NewResponse(context.Context, responses.ResponseNewParams, ...option.RequestOption) (*responses.Response, error)
}

func callChat(ctx context.Context, c interface{ wholeCaller }, opts ...option.RequestOption) error {
	_, err := c.New(ctx, chat("m", 12), opts...)
	return err
}

func callCompletion(ctx context.Context, c interface{ wholeCaller }, opts ...option.RequestOption) error {
	_, err := c.NewCompletion(ctx, complete("m", 12), opts...)
	return err
}

func callResponse(ctx context.Context, c interface{ wholeCaller }, opts ...option.RequestOption) error {
	_, err := c.NewResponse(ctx, respond("m", 12), opts...)
	return err
}

func callBackground(ctx context.Context, c interface{ wholeCaller }, opts ...option.RequestOption) error {
	p := respond("m", 12)
	p.Background = openai.Bool(true)
	res, err := c.NewResponse(ctx, p, opts...)
	if err == nil && res.Status != responses.ResponseStatusQueued {
		return &tokenpace.StreamError{Kind: tokenpace.KindTruncated, Detail: "status " + string(res.Status)}
	}
	return err
}

// simWhole returns a Client of a simulator whose model "m" answers 12
// tokens, its first after 100 ms and one every 20 ms after it.
func simWhole(t *testing.T) *tokenpace.Client {
	return simClient(t, []simulate.Option{
		simulate.WithModel("m", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 20 * time.Millisecond}), replyWords(12),
	})
}

// handlerClient returns a function that gives a Client of h.
func handlerClient(h http.Handler) func(t *testing.T) *tokenpace.Client {
	return func(t *testing.T) *tokenpace.Client {
		url, hc := serve(t, h)
		return tokenpace.NewClient(openaiClient(url, hc))
	}
}
