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

// A provider admits one request a minute and says so in its headers. With
// FollowServer, the Router skips it for the second call before it would
// answer 429, and the replica answers at once.
func ExampleLimit_followServer() {
	serve := func(opts ...simulate.Option) (*openai.Client, func()) {
		sim, err := simulate.NewServer(append(opts,
			simulate.WithModel("m", &simulate.Fixed{TTFT: 10 * time.Millisecond}),
			simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return "ok", true }))...)
		if err != nil {
			panic(err)
		}
		srv := httptest.NewServer(sim)
		c := openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("sk-..."))
		return &c, func() { srv.Close(); sim.Close() }
	}
	provider, stop := serve(simulate.WithRateLimit(simulate.RateLimit{Requests: 1, Window: time.Minute}))
	defer stop()
	replica, stop2 := serve()
	defer stop2()

	router, err := tokenpace.NewRouter(tokenpace.NewClient(openai.NewClient()),
		tokenpace.Policy{Budget: tokenpace.Budget{TTFT: time.Second}},
		tokenpace.Route{Name: "provider", Client: provider, Model: "m",
			Limit: tokenpace.Limit{FollowServer: true}},
		tokenpace.Route{Name: "replica", Client: replica, Model: "m"},
	)
	if err != nil {
		panic(err)
	}
	for call := 1; call <= 2; call++ {
		stream := router.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi!")},
		})
		for stream.Next() {
		}
		stream.Close()
		fmt.Printf("call %d:", call)
		for _, a := range stream.Timing().Attempts {
			fmt.Printf(" %s %s", a.Target, a.Outcome)
			if a.Admission != "" {
				fmt.Printf(" (%s)", a.Admission)
			}
		}
		fmt.Println()
	}
	// Output:
	// call 1: provider won
	// call 2: provider skipped (server_limit) replica won
}
