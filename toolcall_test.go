package tokenpace_test

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// withWeather scripts every reply as a call of get_weather.
func withWeather() simulate.Option {
	return simulate.WithToolCalls(func(simulate.ReplyInfo) []simulate.ToolCall {
		return []simulate.ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris"}`}}
	})
}

// chatWithTools returns chat params that offer get_weather.
func chatWithTools(model string) openai.ChatCompletionNewParams {
	p := chat(model, 100)
	p.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "get_weather"})}
	return p
}

// A tool call is output: TTFT runs to its first delta, and the caller
// rebuilds the call from the stream.
func TestToolCallTTFT(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := simClient(t, []simulate.Option{
			simulate.WithModel("m", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond}), withWeather(),
		})
		start := time.Now()
		s := c.NewStreaming(context.Background(), chatWithTools("m"))
		var first time.Duration
		for s.Next() {
			if ch := s.Current().Choices; first == 0 && len(ch) > 0 && len(ch[0].Delta.ToolCalls) > 0 {
				first = time.Since(start)
			}
		}
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		tm := s.Timing()
		if first != 100*time.Millisecond || tm.TTFT() != first {
			t.Errorf("first tool-call delta at %v, TTFT() = %v, want both 100ms", first, tm.TTFT())
		}
		call := s.Accumulated().Choices[0].Message.ToolCalls
		if len(call) != 1 || call[0].Function.Name != "get_weather" || call[0].Function.Arguments != `{"city":"Paris"}` {
			t.Errorf("tool calls = %+v, want one get_weather call with its arguments", call)
		}
	})
}

// A stream that stalls inside a tool call is not continued, even with
// Continue: the call ends with the breach, and the next route is never
// asked, so the caller never reads a second copy of the call. A stream
// that stalls before any output still falls back, and the caller reads
// the fallback's call only.
func TestToolCallNeverContinued(t *testing.T) {
	tests := []struct {
		name  string
		fault string
		kinds []tokenpace.AttemptKind
		ok    bool
	}{
		{"stall inside the call", "stall;for=5s;after=2", []tokenpace.AttemptKind{tokenpace.AttemptFirst}, false},
		{"stall before any output", "stall;for=5s;after=0", []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptFallback}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				big := route("big")
				big.Options = []option.RequestOption{option.WithHeader(simulate.FaultHeader, tt.fault)}
				r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: time.Second, Gap: 100 * msec}, Continue: true}, []simulate.Option{
					simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 20 * msec}),
					simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
					withWeather(),
				}, big, route("small"))
				s := r.NewStreaming(context.Background(), chatWithTools("big"))
				calls := 0
				for s.Next() {
					for _, ch := range s.Current().Choices {
						for _, tc := range ch.Delta.ToolCalls {
							if tc.Function.Name != "" {
								calls++
							}
						}
					}
				}
				s.Close()
				if calls != 1 {
					t.Errorf("the caller read %d tool calls, want 1", calls)
				}
				if got := kinds(s.Timing()); !slices.Equal(got, tt.kinds) {
					t.Errorf("kinds = %v, want %v", got, tt.kinds)
				}
				if tt.ok {
					if err := s.Err(); err != nil {
						t.Fatalf("Err() = %v, want nil", err)
					}
					if got := s.Accumulated().Choices[0].Message.ToolCalls[0].Function.Arguments; got != `{"city":"Paris"}` {
						t.Errorf("arguments = %q, want the whole call's", got)
					}
					return
				}
				checkBudgetError(t, s.Err(), tokenpace.BudgetError{Target: "big", Phase: tokenpace.PhaseGap, Limit: 100 * msec, Observed: 100 * msec})
			})
		})
	}
}
