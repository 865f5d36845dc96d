package tokenpace_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// startTwoModels serves a "big" model whose prefill takes 2 s and a
// "small" one that answers in 20 ms, on loopback; a request may ask for a
// fault with simulate.FaultHeader.
func startTwoModels() (url string, stop func()) {
	sim, err := simulate.NewServer(
		simulate.WithModel("big", &simulate.Fixed{TTFT: 2 * time.Second, ITL: 5 * time.Millisecond}),
		simulate.WithModel("small", &simulate.Fixed{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond}),
		simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) { return "Hello from " + ri.Model + ".", true }),
		simulate.WithFaultHeader(true), // a request may ask for a fault (ExampleStreamError)
	)
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(sim)
	return srv.URL + "/v1/", func() { srv.Close(); sim.Close() }
}

// A voice bot must speak within 180 ms. The big model misses its TTFT
// budget, so the call moves on to the small one; the caller reads one
// stream, and its Timing tells what happened.
func ExampleRouter() {
	url, stop := startTwoModels()
	defer stop()
	client := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("sk-...")))

	router, err := tokenpace.NewRouter(client,
		tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 180 * time.Millisecond}},
		tokenpace.Route{Name: "big", Model: "big"},
		tokenpace.Route{Name: "small", Model: "small"},
	)
	if err != nil {
		panic(err)
	}
	stream := router.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi!")},
	})
	defer stream.Close()
	for stream.Next() {
		for _, choice := range stream.Current().Choices {
			fmt.Print(choice.Delta.Content)
		}
	}
	fmt.Println()
	stream.Close()

	t := stream.Timing()
	fmt.Println("error:", stream.Err())
	fmt.Println("answered by:", t.Target)
	for _, a := range t.Attempts {
		fmt.Println("attempt:", a.Kind, a.Target, a.Outcome)
	}
	for _, b := range t.Breaches {
		fmt.Println("breach:", b.Target, b.Phase, "limit", b.Limit)
	}
	// Output:
	// Hello from small.
	// error: <nil>
	// answered by: small
	// attempt: first big breached
	// attempt: fallback small won
	// breach: big ttft limit 180ms
}

// With FailFast a breach ends the stream with a *BudgetError; the output
// streamed before it stays readable.
func ExampleBudgetError() {
	url, stop := startTwoModels()
	defer stop()
	client := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("sk-...")))

	router, err := tokenpace.NewRouter(client,
		tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 100 * time.Millisecond}, FailFast: true},
		tokenpace.Route{Name: "big", Model: "big"},
	)
	if err != nil {
		panic(err)
	}
	stream := router.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi!")},
	})
	for stream.Next() {
	}
	stream.Close()

	var be *tokenpace.BudgetError
	if errors.As(stream.Err(), &be) {
		fmt.Println("phase:", be.Phase, "target:", be.Target, "limit:", be.Limit)
	}
	fmt.Println("is ErrBudgetExceeded:", errors.Is(stream.Err(), tokenpace.ErrBudgetExceeded))
	// Output:
	// phase: ttft target: big limit: 100ms
	// is ErrBudgetExceeded: true
}

// Autocompletion: each keystroke starts a new request for the same key,
// and Latest cancels the one in flight.
func ExampleLatest() {
	var latest tokenpace.Latest
	first, done1 := latest.Begin(context.Background(), "main.go")
	defer done1()
	second, done2 := latest.Begin(context.Background(), "main.go")
	defer done2()
	fmt.Println("first superseded:", errors.Is(context.Cause(first), tokenpace.ErrSuperseded))
	fmt.Println("second running:", second.Err() == nil)
	// Output:
	// first superseded: true
	// second running: true
}

// Hedging: when the big model has not produced a token after 50 ms, the
// small one starts in parallel; the first token wins and the loser is
// cancelled at once.
func ExampleHedge() {
	url, stop := startTwoModels()
	defer stop()
	client := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("sk-...")))

	router, err := tokenpace.NewRouter(client,
		tokenpace.Policy{Hedge: tokenpace.Hedge{After: 50 * time.Millisecond}},
		tokenpace.Route{Name: "big", Model: "big"},
		tokenpace.Route{Name: "small", Model: "small"},
	)
	if err != nil {
		panic(err)
	}
	stream := router.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi!")},
	})
	for stream.Next() {
	}
	stream.Close()
	fmt.Println(stream.Accumulated().Choices[0].Message.Content)
	for _, a := range stream.Timing().Attempts {
		fmt.Println("attempt:", a.Kind, a.Target, a.Outcome)
	}
	// Output:
	// Hello from small.
	// attempt: first big hedge_lost
	// attempt: hedge small won
}

// Continuation: the big model stalls after five tokens; after 100 ms of
// silence the call resumes on the small model with the text so far as an
// assistant prefix, and the caller reads one stream.
func ExamplePolicy_continue() {
	sim, err := simulate.NewServer(
		simulate.WithModel("big", &simulate.Fixed{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond}),
		simulate.WithModel("small", &simulate.Fixed{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond}),
		simulate.WithFaultHeader(true), // the big route asks for a stall
		simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) {
			if ri.Model == "big" {
				return "One two three four five six seven eight.", true
			}
			return " six seven eight.", true // asked to continue
		}),
	)
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(sim)
	defer func() { srv.Close(); sim.Close() }()
	client := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("sk-...")))

	router, err := tokenpace.NewRouter(client,
		tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * time.Millisecond}, Continue: true},
		tokenpace.Route{Name: "big", Model: "big",
			Options: []option.RequestOption{option.WithHeader(simulate.FaultHeader, "stall;for=5s;after=5")}},
		tokenpace.Route{Name: "small", Model: "small"},
	)
	if err != nil {
		panic(err)
	}
	stream := router.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Count to eight.")},
	})
	for stream.Next() {
	}
	stream.Close()
	t := stream.Timing()
	fmt.Println(stream.Accumulated().Choices[0].Message.Content)
	fmt.Println("error:", stream.Err())
	for _, a := range t.Attempts {
		fmt.Println("attempt:", a.Kind, a.Target, a.Outcome, a.Tokens, "tokens")
	}
	fmt.Println("breach:", t.Breaches[0].Target, t.Breaches[0].Phase)
	// Output:
	// One two three four five six seven eight.
	// error: <nil>
	// attempt: first big breached 5 tokens
	// attempt: continuation small won 3 tokens
	// breach: big gap
}
