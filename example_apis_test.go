package tokenpace_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
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
		tokenpace.Route{Name: "main", Model: "m"})
	if err != nil {
		panic(err)
	}
	var t *tokenpace.Timing
	res, err := router.New(context.Background(), openai.ChatCompletionNewParams{
		Model:    "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is latency?")},
	}, tokenpace.WithTimingInto(&t)) // as option.WithResponseInto
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

// A Router restarts a stream that breaks inside a tool call, and tells the
// caller: Restarted is true on the first chunk of the new output, and
// Accumulated starts over there, so the call is read whole and once.
func ExampleStream_Restarted() {
	sim, err := simulate.NewServer(
		simulate.WithModel("m", &simulate.Fixed{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond}),
		simulate.WithToolCalls(func(simulate.ReplyInfo) []simulate.ToolCall {
			return []simulate.ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris"}`}}
		}),
		simulate.WithFaultHeader(true),
	)
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(sim)
	defer func() { srv.Close(); sim.Close() }()
	tp := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("sk-...")))
	// The primary's connection drops after two chunks of the call.
	primary := tokenpace.Route{Name: "primary", Model: "m",
		Options: []option.RequestOption{option.WithHeader(simulate.FaultHeader, "reset;after=2")}}
	backup := tokenpace.Route{Name: "backup", Model: "m"}
	router, err := tokenpace.NewRouter(tp, tokenpace.Policy{Continue: true}, primary, backup)
	if err != nil {
		panic(err)
	}
	stream := router.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:    "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris?")},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(
			openai.FunctionDefinitionParam{Name: "get_weather"})},
	})
	defer stream.Close()
	for stream.Next() {
		if stream.Restarted() {
			fmt.Println("restarted: drop the partial call")
		}
	}
	if err := stream.Err(); err != nil {
		fmt.Println("error:", err)
		return
	}
	for _, call := range stream.Accumulated().Choices[0].Message.ToolCalls {
		fmt.Println(call.Function.Name, call.Function.Arguments)
	}
	for _, a := range stream.Timing().Attempts {
		fmt.Println(a.Target, a.Kind, a.Outcome)
	}
	// Output:
	// restarted: drop the partial call
	// get_weather {"city":"Paris"}
	// primary first failed
	// backup restart won
}

// A non-streaming Responses call under a Router: the TTFT budget bounds
// the whole response, as for Router.New.
func ExampleRouter_NewResponse() {
	url, stop := startSimulator("Latency is a budget.")
	defer stop()
	tp := tokenpace.NewClient(openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("sk-...")))
	router, err := tokenpace.NewRouter(tp, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 5 * time.Second}},
		tokenpace.Route{Name: "main", Model: "m"})
	if err != nil {
		panic(err)
	}
	// was: res, err := client.Responses.New(ctx, params)
	var t *tokenpace.Timing
	res, err := router.NewResponse(context.Background(), responses.ResponseNewParams{
		Model: "m",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("What is latency?")},
	}, tokenpace.WithTimingInto(&t))
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(res.OutputText())
	fmt.Println(t.API, "answered by", t.Target, "streamed:", t.Stream, "output tokens:", t.OutputTokens)
	// Output:
	// Latency is a budget.
	// responses answered by main streamed: false output tokens: 4
}
