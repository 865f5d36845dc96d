package tokenpace_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// startSimulator serves a simulated model "m" that answers reply, with a
// 20 ms time to first token and 5 ms between tokens, on loopback.
func startSimulator(reply string) (url string, stop func()) {
	sim, err := simulate.NewServer(
		simulate.WithModel("m", &simulate.Fixed{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond}),
		simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return reply, true }),
	)
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(sim)
	return srv.URL + "/v1/", func() { srv.Close(); sim.Close() }
}

// Switching from openai-go costs one line: the same parameters and request
// options go to the tokenpace Client, and the stream reads the same way.
func Example() {
	url, stop := startSimulator("Latency is a budget. Spend it well.")
	defer stop()

	client := openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("sk-..."))
	tp := tokenpace.NewClient(client)

	params := openai.ChatCompletionNewParams{
		Model:    "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is latency?")},
	}
	// was: stream := client.Chat.Completions.NewStreaming(ctx, params)
	stream := tp.NewStreaming(context.Background(), params)
	defer stream.Close()
	for stream.Next() {
		for _, choice := range stream.Current().Choices {
			fmt.Print(choice.Delta.Content)
		}
	}
	fmt.Println()
	if err := stream.Err(); err != nil {
		fmt.Println("error:", err)
		return
	}

	t := stream.Timing()
	fmt.Println("output tokens:", t.OutputTokens, "from usage:", t.UsageReported)
	fmt.Println("finish reason:", t.FinishReason)
	fmt.Println("TTFT at least the server's 20 ms:", t.TTFT() >= 20*time.Millisecond)
	fmt.Println("gaps:", len(t.ITL()))
	// Output:
	// Latency is a budget. Spend it well.
	// output tokens: 7 from usage: true
	// finish reason: stop
	// TTFT at least the server's 20 ms: true
	// gaps: 6
}

// A Timing holds raw arrival times; its methods derive the figures.
func ExampleTiming() {
	sent := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return sent.Add(time.Duration(ms) * time.Millisecond) }
	t := tokenpace.Timing{
		Start:        sent.Add(-5 * time.Millisecond), // 5 ms in a rate limiter
		Sent:         sent,
		Headers:      at(40),
		Chunks:       []time.Time{at(180), at(210), at(240), at(300), at(330)},
		End:          at(335),
		OutputTokens: 9, // from the usage chunk: some chunks held two tokens
	}
	fmt.Println("queue:", t.Queue())
	fmt.Println("TTFB:", t.TTFB())
	fmt.Println("TTFT:", t.TTFT(), "user TTFT:", t.UserTTFT())
	fmt.Println("ITL:", t.ITL(), "max gap:", t.MaxGap())
	fmt.Println("TPOT:", t.TPOT(), fmt.Sprintf("TPS: %.1f", t.TPS()))
	fmt.Println("E2E:", t.E2E())
	// Output:
	// queue: 5ms
	// TTFB: 40ms
	// TTFT: 180ms user TTFT: 185ms
	// ITL: [30ms 30ms 60ms 30ms] max gap: 60ms
	// TPOT: 18.75ms TPS: 53.3
	// E2E: 335ms
}

// Hooks see each request's events live and its final Timing once; a
// milestone marks when the text first satisfies a predicate.
func ExampleWithHooks() {
	url, stop := startSimulator("Sure. Here is the plan:\n1. Measure. 2. Decide.")
	defer stop()

	hooks := tokenpace.Hooks{
		FirstToken: func(ctx context.Context, i tokenpace.FirstTokenInfo) { fmt.Println("first token from", i.Model) },
		Milestone:  func(ctx context.Context, i tokenpace.MilestoneInfo) { fmt.Println("reached", i.Name) },
		Done: func(ctx context.Context, t *tokenpace.Timing) {
			fmt.Println("done:", t.OutputTokens, "tokens, error:", t.Err)
		},
	}
	tp := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("sk-...")),
		tokenpace.WithHooks(hooks),
		tokenpace.WithMilestone("numbered_list", func(text string) bool { return strings.Contains(text, "1.") }))

	stream := tp.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:    "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Plan?")},
	})
	for stream.Next() {
	}
	stream.Close()
	// Output:
	// first token from m
	// reached first_sentence
	// reached first_line
	// reached numbered_list
	// done: 9 tokens, error: <nil>
}
