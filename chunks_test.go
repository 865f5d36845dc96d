package tokenpace_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

func event(choices string) string {
	return `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"served","choices":[` + choices + "]}\n\n"
}

// TestOutputBearingChunks checks which chunks count as tokens: content,
// reasoning, tool-call and refusal deltas do, in any choice; role-only,
// empty and usage-less finish chunks do not. Without a usage chunk, output
// tokens are the output-bearing deltas counted.
func TestOutputBearingChunks(t *testing.T) {
	events := []string{
		event(`{"index":0,"delta":{"role":"assistant","content":""}},{"index":1,"delta":{"role":"assistant"}}`), // 10 ms: role-only
		event(`{"index":0,"delta":{"reasoning_content":"hmm"}}`),                                                // 20 ms: reasoning
		event(`{"index":1,"delta":{"content":"B"}}`),                                                            // 30 ms: second choice
		event(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"t","type":"function","function":{"name":"f","arguments":""}}]}}`),
		event(`{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}},{"index":1,"delta":{"refusal":"no"}}`),
		event(`{"index":0,"delta":{"content":null}}`), // 60 ms: empty
		event(`{"index":0,"delta":{},"finish_reason":"tool_calls"},{"index":1,"delta":{},"finish_reason":"stop"}`),
		"data: [DONE]\n\n",
	}
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, script("text/event-stream", events...))
		c := tokenpace.NewClient(openaiClient(url, hc))
		params := chat("m", 10)
		params.N = openai.Int(2)
		params.StreamOptions.IncludeUsage = openai.Bool(false)
		s := c.NewStreaming(context.Background(), params)
		got := drain(t, s, 0)
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v", err)
		}
		if len(got) != len(events)-1 {
			t.Errorf("Next() returned %d chunks, want %d", len(got), len(events)-1)
		}
		tm := s.Timing()
		var at []time.Duration
		for _, c := range tm.Chunks {
			at = append(at, c.Sub(tm.Sent))
		}
		want := []time.Duration{20 * time.Millisecond, 30 * time.Millisecond, 40 * time.Millisecond, 50 * time.Millisecond}
		if !slices.Equal(at, want) {
			t.Errorf("Chunks at %v, want %v", at, want)
		}
		if tm.UsageReported || tm.OutputTokens != 5 {
			t.Errorf("UsageReported, OutputTokens = %v, %d, want false, 5", tm.UsageReported, tm.OutputTokens)
		}
		if tm.FinishReason != "tool_calls" || tm.ResponseModel != "served" || tm.Model != "m" {
			t.Errorf("FinishReason, ResponseModel, Model = %q, %q, %q, want tool_calls, served, m", tm.FinishReason, tm.ResponseModel, tm.Model)
		}
		acc := s.Accumulated()
		if len(acc.Choices) != 2 || acc.Choices[1].Message.Content != "B" || acc.Choices[1].Message.Refusal != "no" {
			t.Fatalf("Accumulated choices = %+v, want 2 with B / no in the second", acc.Choices)
		}
		if tc := acc.Choices[0].Message.ToolCalls; len(tc) != 1 || tc[0].Function.Arguments != "{}" {
			t.Errorf("Accumulated tool calls = %+v, want f({})", tc)
		}
	})
}

// TestIncludeUsage checks that stream_options.include_usage is turned on
// unless the caller set it.
func TestIncludeUsage(t *testing.T) {
	for _, tt := range []struct {
		name string
		set  *bool
		want string
	}{
		{name: "unset", want: "true"},
		{name: "false", set: new(false), want: "false"},
		{name: "true", set: new(true), want: "true"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var body struct {
					StreamOptions struct {
						IncludeUsage json.RawMessage `json:"include_usage"`
					} `json:"stream_options"`
				}
				h := script("text/event-stream", "data: [DONE]\n\n")
				url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					b, _ := io.ReadAll(r.Body)
					_ = json.Unmarshal(b, &body)
					h(w, r)
				}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				params := chat("m", 10)
				if tt.set != nil {
					params.StreamOptions.IncludeUsage = openai.Bool(*tt.set)
				}
				s := c.NewStreaming(context.Background(), params)
				drain(t, s, 0)
				if got := string(body.StreamOptions.IncludeUsage); got != tt.want {
					t.Errorf("include_usage sent = %s, want %s", got, tt.want)
				}
			})
		})
	}
}

// TestRetriesVisible checks that openai-go's retries each appear in
// Timing.HTTP, and that TTFT and UserTTFT count from the call's first
// request, the Retry-After wait included.
func TestRetriesVisible(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t,
			simulate.WithModel("m", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond}),
			simulate.WithFaults(simulate.Faults{Script: func(i uint64) simulate.Fault {
				if i == 0 {
					return simulate.Fault{Kind: simulate.FaultRateLimit, For: 2 * time.Second}
				}
				return simulate.Fault{}
			}}))
		oc := openai.NewClient(option.WithBaseURL(ts.URL), option.WithHTTPClient(ts.Client),
			option.WithAPIKey("x"), option.WithMaxRetries(2))
		var ft tokenpace.FirstTokenInfo
		ctx := tokenpace.ContextWithHooks(context.Background(), tokenpace.Hooks{
			FirstToken: func(_ context.Context, i tokenpace.FirstTokenInfo) { ft = i },
		})
		s := tokenpace.NewClient(oc).NewStreaming(ctx, chat("m", 3))
		drain(t, s, 0)
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v", err)
		}
		tm := s.Timing()
		if len(tm.HTTP) != 2 || tm.HTTP[0].Status != 429 || tm.HTTP[1].Status != 200 {
			t.Fatalf("HTTP = %+v, want a 429 then a 200", tm.HTTP)
		}
		if got, want := tm.HTTP[1].Start.Sub(tm.HTTP[0].Start), 2*time.Second; got != want {
			t.Errorf("retry after %v, want %v (Retry-After)", got, want)
		}
		if got, want := tm.UserTTFT(), 2*time.Second+100*time.Millisecond; got != want {
			t.Errorf("UserTTFT() = %v, want %v", got, want)
		}
		if got, want := tm.TTFT(), 2*time.Second+100*time.Millisecond; got != want {
			t.Errorf("TTFT() = %v, want %v (from the first request: the retry's wait included)", got, want)
		}
		if got, want := tm.UserTTFT()-tm.TTFT(), tm.Queue(); got != want {
			t.Errorf("UserTTFT() - TTFT() = %v, want Queue() %v", got, want)
		}
		if got, want := tm.Chunks[0].Sub(tm.HTTP[1].Start), 100*time.Millisecond; got != want {
			t.Errorf("TTFT of the answering request = %v, want %v", got, want)
		}
		if ft.TTFT != tm.TTFT() || ft.At != tm.Chunks[0] {
			t.Errorf("context Hooks.FirstToken got %+v, want TTFT %v", ft, tm.TTFT())
		}
	})
}
