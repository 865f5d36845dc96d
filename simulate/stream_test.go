package simulate_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/simulate"
)

// newClient returns an openai-go client of ts without retries.
func newClient(ts *simulate.TestServer) openai.Client {
	return openai.NewClient(
		option.WithBaseURL(ts.URL),
		option.WithHTTPClient(ts.Client),
		option.WithAPIKey("x"),
		option.WithMaxRetries(0),
	)
}

// streamed is what a client saw of one streamed chat completion.
type streamed struct {
	text     string
	arrivals []time.Duration // of output-bearing chunks, since the call
	chunks   int             // every chunk
	roleAt   time.Duration   // arrival of the role-only chunk, -1 if none
	finish   string
	usage    openai.CompletionUsage
	err      error
}

// chatStream streams one chat completion and records when each chunk
// arrived.
func chatStream(t *testing.T, c openai.Client, params openai.ChatCompletionNewParams, opts ...option.RequestOption) streamed {
	t.Helper()
	start := time.Now()
	s := c.Chat.Completions.NewStreaming(context.Background(), params, opts...)
	defer s.Close()
	out := streamed{roleAt: -1}
	for s.Next() {
		ch := s.Current()
		out.chunks++
		if ch.Usage.TotalTokens > 0 {
			out.usage = ch.Usage
		}
		for _, c := range ch.Choices {
			if c.Delta.Content != "" {
				out.text += c.Delta.Content
				out.arrivals = append(out.arrivals, time.Since(start))
			} else if c.Delta.Role != "" && out.roleAt < 0 {
				out.roleAt = time.Since(start)
			}
			if c.FinishReason != "" {
				out.finish = c.FinishReason
			}
		}
	}
	out.err = s.Err()
	return out
}

func chatParams(model string, maxTokens int64) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:         model,
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me about latency.")},
		MaxTokens:     openai.Int(maxTokens),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
}

// wholeChatParams is chatParams for a request that does not stream: without
// stream_options, which a server refuses there.
func wholeChatParams(model string, maxTokens int64) openai.ChatCompletionNewParams {
	p := chatParams(model, maxTokens)
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{}
	return p
}

func TestStreamTimingIsScheduleplusRTT(t *testing.T) {
	tests := []struct {
		name      string
		ttft, itl time.Duration
		rtt       time.Duration
		tokens    int
	}{
		{"no network", 200 * time.Millisecond, 20 * time.Millisecond, 0, 5},
		{"rtt 50ms", 200 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond, 5},
		{"one token", time.Second, time.Millisecond, 10 * time.Millisecond, 1},
		{"odd rtt", 3 * time.Millisecond, 7 * time.Millisecond, 3 * time.Millisecond, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ts := simulate.StartInMemory(t,
					simulate.WithModel("m", &simulate.Fixed{TTFT: tt.ttft, ITL: tt.itl}),
					simulate.WithRTT(tt.rtt))
				got := chatStream(t, newClient(ts), chatParams("m", int64(tt.tokens)))
				if got.err != nil {
					t.Fatalf("stream error: %v", got.err)
				}
				if len(got.arrivals) != tt.tokens {
					t.Fatalf("output chunks = %d, want %d", len(got.arrivals), tt.tokens)
				}
				for i, at := range got.arrivals {
					want := tt.rtt + tt.ttft + time.Duration(i)*tt.itl
					if at != want {
						t.Errorf("chunk %d arrived at %v, want %v", i, at, want)
					}
				}
				if got.finish != "length" {
					t.Errorf("finish_reason = %q, want %q", got.finish, "length")
				}
				if got.usage.CompletionTokens != int64(tt.tokens) {
					t.Errorf("usage.completion_tokens = %d, want %d", got.usage.CompletionTokens, tt.tokens)
				}
			})
		})
	}
}
