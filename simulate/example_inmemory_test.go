package simulate_test

import (
	"context"
	"fmt"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/simulate"
)

// The simulator served in process, with no port: the wiring a program (an
// example, a benchmark, a demo) uses. Tests use StartInMemory instead.
func ExampleServeInMemory() {
	sim, err := simulate.ServeInMemory(
		simulate.WithModel("small", &simulate.Fixed{TTFT: 5 * time.Millisecond, ITL: time.Millisecond}),
		simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return "Hi there.", true }),
	)
	if err != nil {
		panic(err)
	}
	defer sim.Close()

	client := openai.NewClient(
		option.WithBaseURL(sim.BaseURL()),
		option.WithHTTPClient(sim.Client()),
		option.WithAPIKey("unused"),
	)
	resp, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model:    "small",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Choices[0].Message.Content)
	// Output:
	// Hi there.
}
