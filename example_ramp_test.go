package tokenpace_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// A route whose breaker closes again comes back gradually: right after its
// probe succeeds it receives almost no share of the calls (here the ramp
// lasts an hour), which the replica answers instead.
func ExampleBreakerSettings_ramp() {
	serve := func(opts ...simulate.Option) (*openai.Client, func()) {
		sim, err := simulate.NewServer(append(opts,
			simulate.WithModel("m", &simulate.Fixed{TTFT: time.Millisecond}),
			simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return "ok", true }))...)
		if err != nil {
			panic(err)
		}
		srv := httptest.NewServer(sim)
		c := openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("sk-..."), option.WithMaxRetries(0))
		return &c, func() { srv.Close(); sim.Close() }
	}
	failFirst := simulate.WithFaults(simulate.Faults{Script: func(i uint64) simulate.Fault {
		if i == 0 {
			return simulate.Fault{Kind: simulate.FaultServerError}
		}
		return simulate.Fault{}
	}})
	primary, stop := serve(failFirst)
	defer stop()
	replica, stop2 := serve()
	defer stop2()

	router, err := tokenpace.NewRouter(tokenpace.NewClient(openai.NewClient()),
		tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1, Timeout: 50 * time.Millisecond, Ramp: time.Hour}},
		tokenpace.Route{Name: "primary", Client: primary, Model: "m"},
		tokenpace.Route{Name: "replica", Client: replica, Model: "m"},
	)
	if err != nil {
		panic(err)
	}
	call := func(what string) {
		stream := router.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi!")},
		})
		for stream.Next() {
		}
		stream.Close()
		fmt.Printf("%s:", what)
		for _, a := range stream.Timing().Attempts {
			fmt.Printf(" %s %s", a.Target, a.Outcome)
			if a.Admission != "" {
				fmt.Printf(" (%s)", a.Admission)
			}
		}
		fmt.Println()
	}
	call("failure")
	time.Sleep(60 * time.Millisecond) // the breaker's Timeout: half-open
	call("probe")
	call("after")
	// Output:
	// failure: primary failed replica won
	// probe: primary won
	// after: primary skipped (ramp) replica won
}
