package tokenpace_test

import (
	"context"
	"fmt"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// A session stays on the route that answered it last while that route
// meets its budget: the first call of "alice" misses the big model's TTFT
// budget and moves to the small one; her next call goes there first, and
// its prefix cache is warm for her.
func ExampleAffinity() {
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
	ctx := tokenpace.ContextWithCallPolicy(context.Background(), tokenpace.CallPolicy{Session: "alice"})
	for turn := 1; turn <= 2; turn++ {
		stream := router.NewStreaming(ctx, openai.ChatCompletionNewParams{
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi!")},
		})
		for stream.Next() {
		}
		stream.Close()
		fmt.Printf("turn %d:", turn)
		for _, a := range stream.Timing().Attempts {
			fmt.Printf(" %s %s (affinity %v)", a.Target, a.Outcome, a.Affinity)
		}
		fmt.Println()
	}
	// Output:
	// turn 1: big breached (affinity false) small won (affinity false)
	// turn 2: small won (affinity true)
}
