package tokenpace_test

import (
	"context"
	"fmt"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
)

// Fill-in-the-middle for ghost text: the code before the cursor is the
// prompt, the code after it the suffix; the stream has openai-go's
// completion events, timed as chat is.
func ExampleClient_NewCompletionStreaming() {
	url, stop := startSimulator("x := compute()")
	defer stop()
	tp := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("sk-...")))

	// was: stream := client.Completions.NewStreaming(ctx, params)
	stream := tp.NewCompletionStreaming(context.Background(), openai.CompletionNewParams{
		Model:  "m",
		Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("func f() int {\n\t")},
		Suffix: openai.String("\n\treturn x\n}"),
	})
	defer stream.Close()
	for stream.Next() {
		if c := stream.Current().Choices; len(c) > 0 {
			fmt.Print(c[0].Text)
		}
	}
	fmt.Println()
	if err := stream.Err(); err != nil {
		fmt.Println("error:", err)
		return
	}
	t := stream.Timing()
	fmt.Println(t.API, "output tokens:", t.OutputTokens, "first token:", t.TTFT() > 0)
	// Output:
	// x := compute()
	// completions output tokens: 3 first token: true
}

// The Responses API: typed events, TTFT to the first output delta, usage
// from response.completed.
func ExampleClient_NewResponseStreaming() {
	url, stop := startSimulator("Hi there.")
	defer stop()
	tp := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("sk-...")))

	// was: stream := client.Responses.NewStreaming(ctx, params)
	stream := tp.NewResponseStreaming(context.Background(), responses.ResponseNewParams{
		Model: "m",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Say hi.")},
	})
	defer stream.Close()
	for stream.Next() {
		if ev := stream.Current(); ev.Type == "response.output_text.delta" {
			fmt.Print(ev.Delta)
		}
	}
	fmt.Println()
	if err := stream.Err(); err != nil {
		fmt.Println("error:", err)
		return
	}
	t := stream.Timing()
	fmt.Println(t.API, "output tokens:", t.OutputTokens, "finish:", t.FinishReason)
	// Output:
	// Hi there.
	// responses output tokens: 2 finish: stop
}

// A non-streaming call under a Router: no token is visible before the
// whole response, so the TTFT budget bounds the whole response.
func ExampleRouter_New() {
	url, stop := startSimulator("Latency is a budget.")
	defer stop()
	tp := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("sk-...")))
	router, err := tokenpace.NewRouter(tp, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 5 * time.Second}},
		tokenpace.Route{Target: tokenpace.Target{Name: "main", Model: "m"}})
	if err != nil {
		panic(err)
	}
	res, t, err := router.NewTimed(context.Background(), openai.ChatCompletionNewParams{
		Model:    "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is latency?")},
	})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(res.Choices[0].Message.Content)
	fmt.Println("answered by", t.Target, "streamed:", t.Stream, "output tokens:", t.OutputTokens)
	// Output:
	// Latency is a budget.
	// answered by main streamed: false output tokens: 4
}
