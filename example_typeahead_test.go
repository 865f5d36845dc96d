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

// Ghost text with type-ahead reuse: the user types the first characters
// of the suggestion on screen; the next keystroke's request is not sent,
// and its stream hands over the rest of the suggestion at once.
func ExampleLatest_NewCompletionStreaming() {
	sim, err := simulate.NewServer(
		simulate.WithModel("code", &simulate.Fixed{TTFT: 20 * time.Millisecond, ITL: time.Millisecond}),
		simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return "err != nil {", true }),
	)
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(sim)
	defer func() { srv.Close(); sim.Close() }()
	client := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("sk-...")))

	var latest tokenpace.Latest
	ctx := context.Background()
	complete := func(code string) *tokenpace.Stream[openai.Completion] {
		return latest.NewCompletionStreaming(ctx, "main.go", openai.CompletionNewParams{
			Model:  "code",
			Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String(code)},
		}, client.NewCompletionStreaming)
	}
	first := complete("\tif ")
	for first.Next() {
	}
	first.Close()
	fmt.Printf("suggested %q\n", first.Text())

	next := complete("\tif err") // the user typed "err"
	for next.Next() {
	}
	next.Close()
	st, _ := sim.Stats("code")
	fmt.Printf("then %q, TTFT %v; tokens generated in all: %d\n", next.Text(), next.Timing().TTFT(), st.GeneratedTotal)
	// Output:
	// suggested "err != nil {"
	// then " != nil {", TTFT 0s; tokens generated in all: 4
}
