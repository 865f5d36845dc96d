package simulate_test

import (
	"context"
	"fmt"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace/simulate"
)

// A scripted tool call streams as OpenAI's do: the id and name first, the
// arguments over several deltas; openai-go's accumulator rebuilds it.
func ExampleWithToolCalls() {
	sim, err := simulate.ServeInMemory(
		simulate.WithModel("m", &simulate.Fixed{TTFT: 10 * time.Millisecond, ITL: time.Millisecond}),
		simulate.WithToolCalls(func(ri simulate.ReplyInfo) []simulate.ToolCall {
			return []simulate.ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris"}`}}
		}))
	if err != nil {
		panic(err)
	}
	defer sim.Close()
	client := openai.NewClient(option.WithBaseURL(sim.BaseURL()), option.WithHTTPClient(sim.Client()), option.WithAPIKey("x"))
	stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:    "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris?")},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
			Name: "get_weather"})},
	})
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	deltas := 0
	for stream.Next() {
		acc.AddChunk(stream.Current())
		if ch := stream.Current(); len(ch.Choices) > 0 && len(ch.Choices[0].Delta.ToolCalls) > 0 {
			deltas++
		}
	}
	call := acc.Choices[0].Message.ToolCalls[0]
	fmt.Println(call.Function.Name, call.Function.Arguments)
	fmt.Println(deltas, "deltas, finish reason", acc.Choices[0].FinishReason)
	// Output:
	// get_weather {"city":"Paris"}
	// 5 deltas, finish reason tool_calls
}

// The Responses API, streaming: typed events, each with its sequence
// number, ending with response.completed and the usage.
func Example_responses() {
	sim, err := simulate.ServeInMemory(
		simulate.WithModel("m", &simulate.Fixed{TTFT: 10 * time.Millisecond, ITL: time.Millisecond}),
		simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return "Hi there.", true }))
	if err != nil {
		panic(err)
	}
	defer sim.Close()
	client := openai.NewClient(option.WithBaseURL(sim.BaseURL()), option.WithHTTPClient(sim.Client()), option.WithAPIKey("x"))
	stream := client.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{
		Model: "m",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Say hi.")},
	})
	defer stream.Close()
	for stream.Next() {
		ev := stream.Current()
		switch e := ev.AsAny().(type) {
		case responses.ResponseTextDeltaEvent:
			fmt.Printf("%d %s %q\n", ev.SequenceNumber, ev.Type, e.Delta)
		case responses.ResponseCompletedEvent:
			fmt.Printf("%d %s %q, %d output tokens\n", ev.SequenceNumber, ev.Type, e.Response.OutputText(), e.Response.Usage.OutputTokens)
		default:
			fmt.Println(ev.SequenceNumber, ev.Type)
		}
	}
	// Output:
	// 0 response.created
	// 1 response.in_progress
	// 2 response.output_item.added
	// 3 response.content_part.added
	// 4 response.output_text.delta "Hi"
	// 5 response.output_text.delta " there."
	// 6 response.output_text.done
	// 7 response.content_part.done
	// 8 response.output_item.done
	// 9 response.completed "Hi there.", 2 output tokens
}
