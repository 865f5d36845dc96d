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

// A voice bot speaks a sentence only once it is whole. The large model
// starts answering, then stalls before its first sentence ends. On
// probation until that sentence, its words never reach the caller: the
// call falls back to the small model as if the large had not answered.
func ExampleProbation() {
	sim, err := simulate.NewServer(
		simulate.WithModel("large", &simulate.Fixed{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond}),
		simulate.WithModel("small", &simulate.Fixed{TTFT: 10 * time.Millisecond, ITL: 5 * time.Millisecond}),
		simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) { return "Hello from the " + ri.Model + " model. Bye.", true }),
		simulate.WithFaultHeader(true),
	)
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(sim)
	defer func() { srv.Close(); sim.Close() }()
	client := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("sk-...")))

	router, err := tokenpace.NewRouter(client,
		tokenpace.Policy{
			Budget:    tokenpace.Budget{Gap: 200 * time.Millisecond},
			Probation: tokenpace.Probation{Sentence: true},
		},
		tokenpace.Route{Name: "large", Model: "large",
			Options: []option.RequestOption{option.WithHeader(simulate.FaultHeader, "stall;for=2s;after=2")}},
		tokenpace.Route{Name: "small", Model: "small"},
	)
	if err != nil {
		panic(err)
	}
	stream := router.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi!")},
	})
	for stream.Next() {
		for _, c := range stream.Current().Choices {
			fmt.Print(c.Delta.Content)
		}
	}
	fmt.Println()
	stream.Close()
	for _, a := range stream.Timing().Attempts {
		fmt.Println("attempt:", a.Target, a.Outcome, "tokens delivered:", a.Tokens, "restarted:", stream.Restarted())
	}
	// Output:
	// Hello from the small model. Bye.
	// attempt: large breached tokens delivered: 0 restarted: false
	// attempt: small won tokens delivered: 6 restarted: false
}
