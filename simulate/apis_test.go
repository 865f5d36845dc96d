package simulate_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace/simulate"
)

const script = "Hello there, latency world."

// scripted is a server whose model m has TTFT 100 ms and ITL 10 ms and
// replies script; opts add to it.
func scripted(t *testing.T, opts ...simulate.Option) *simulate.TestServer {
	t.Helper()
	return simulate.StartInMemory(t, append([]simulate.Option{
		simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100), ITL: ms(10)}),
		simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return script, true }),
	}, opts...)...)
}

// A Responses stream as openai-go reads it: every event parses into its
// own type in the documented order, sequence numbers count from 0, the
// deltas add up to the reply, the first delta comes at TTFT and
// response.completed carries the usage.
func TestResponsesStreaming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := scripted(t)
		c := newClient(ts)
		start := time.Now()
		s := c.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{
			Model: "m",
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Say hello.")},
		})
		defer s.Close()
		var types []string
		var text strings.Builder
		var firstDelta time.Duration = -1
		var completed responses.Response
		for i := 0; s.Next(); i++ {
			ev := s.Current()
			if ev.SequenceNumber != int64(i) {
				t.Errorf("event %d (%s) sequence_number = %d, want %d", i, ev.Type, ev.SequenceNumber, i)
			}
			types = append(types, ev.Type)
			switch e := ev.AsAny().(type) {
			case responses.ResponseTextDeltaEvent:
				if firstDelta < 0 {
					firstDelta = time.Since(start)
				}
				text.WriteString(e.Delta)
			case responses.ResponseTextDoneEvent:
				if e.Text != script {
					t.Errorf("output_text.done text = %q, want %q", e.Text, script)
				}
			case responses.ResponseCompletedEvent:
				completed = e.Response
			case responses.ResponseCreatedEvent, responses.ResponseInProgressEvent, responses.ResponseOutputItemAddedEvent,
				responses.ResponseContentPartAddedEvent, responses.ResponseContentPartDoneEvent, responses.ResponseOutputItemDoneEvent:
			default:
				t.Errorf("event %d %s parsed as %T", i, ev.Type, e)
			}
		}
		if err := s.Err(); err != nil {
			t.Fatalf("stream error: %v", err)
		}
		want := []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
			"response.output_text.delta", "response.output_text.delta", "response.output_text.delta", "response.output_text.delta",
			"response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"}
		if fmt.Sprint(types) != fmt.Sprint(want) {
			t.Errorf("event types =\n%v\nwant\n%v", types, want)
		}
		if text.String() != script || firstDelta != ms(100) {
			t.Errorf("deltas = %q, first at %v, want %q at 100ms", text.String(), firstDelta, script)
		}
		if completed.Status != "completed" || completed.OutputText() != script || completed.Usage.OutputTokens != 4 || completed.Usage.InputTokens == 0 {
			t.Errorf("completed response: status %q, text %q, usage %+v, want completed, %q, 4 output tokens", completed.Status, completed.OutputText(), completed.Usage, script)
		}
	})
}

func TestResponsesNotStreaming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := scripted(t)
		start := time.Now()
		c := newClient(ts)
		res, err := c.Responses.New(context.Background(), responses.ResponseNewParams{
			Model:           "m",
			MaxOutputTokens: openai.Int(2),
			Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
				responses.ResponseInputItemParamOfMessage("Say hello.", responses.EasyInputMessageRoleUser),
			}},
		})
		if err != nil {
			t.Fatalf("Responses.New: %v", err)
		}
		if got, want := res.OutputText(), "Hello there,"; got != want || res.Status != "incomplete" || res.IncompleteDetails.Reason != "max_output_tokens" {
			t.Errorf("response = %q, %s (%+v), want %q, incomplete for max_output_tokens", got, res.Status, res.IncompleteDetails, want)
		}
		if got := time.Since(start); got != ms(110) || res.Usage.OutputTokens != 2 {
			t.Errorf("response at %v with %d output tokens, want 110ms and 2", got, res.Usage.OutputTokens)
		}
	})
}

// Fill-in-the-middle on /v1/completions: the suffix reaches the script and
// counts as prompt tokens; the completion streams on the chat schedule.
func TestCompletionsFIM(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got simulate.ReplyInfo
		ts := simulate.StartInMemory(t,
			simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100), ITL: ms(10)}),
			simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) { got = ri; return "x := 1", true }))
		start := time.Now()
		c := newClient(ts)
		s := c.Completions.NewStreaming(context.Background(), openai.CompletionNewParams{
			Model:         "m",
			Prompt:        openai.CompletionNewParamsPromptUnion{OfString: openai.String("func f() {\n\t")},
			Suffix:        openai.String("\n\treturn x\n}"),
			StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
		})
		defer s.Close()
		var text strings.Builder
		var arrivals []time.Duration
		var promptTokens int64
		for s.Next() {
			ch := s.Current()
			if len(ch.Choices) > 0 && ch.Choices[0].Text != "" {
				text.WriteString(ch.Choices[0].Text)
				arrivals = append(arrivals, time.Since(start))
			}
			if ch.Usage.PromptTokens > 0 {
				promptTokens = ch.Usage.PromptTokens
			}
		}
		if err := s.Err(); err != nil {
			t.Fatalf("stream error: %v", err)
		}
		if text.String() != "x := 1" || fmt.Sprint(arrivals) != fmt.Sprint([]time.Duration{ms(100), ms(110), ms(120)}) {
			t.Errorf("completion = %q at %v, want %q at [100ms 110ms 120ms]", text.String(), arrivals, "x := 1")
		}
		if got.Prompt != "func f() {\n\t" || got.Suffix != "\n\treturn x\n}" {
			t.Errorf("script saw prompt %q, suffix %q", got.Prompt, got.Suffix)
		}
		if promptTokens != 3+3 { // ceil(12/4) + ceil(12/4)
			t.Errorf("prompt tokens = %d, want 6 (prompt and suffix)", promptTokens)
		}
	})
}

// weather is the scripted call of the tool-call tests: its arguments take
// 1 + 7 tokens (27 bytes of arguments, 4 a token).
var weather = simulate.ToolCall{Name: "get_weather", Arguments: `{"city":"Paris","unit":"c"}`}

func withWeatherCall() simulate.Option {
	return simulate.WithToolCalls(func(ri simulate.ReplyInfo) []simulate.ToolCall {
		if len(ri.Tools) == 1 && ri.Tools[0] == "get_weather" {
			return []simulate.ToolCall{weather}
		}
		return nil
	})
}

// A scripted tool call streams as OpenAI streams it: id and name first,
// the arguments over several deltas, finish_reason "tool_calls"; the
// first tool-call delta comes at TTFT. openai-go's accumulator rebuilds
// the call.
func TestChatToolCallsStreaming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := scripted(t, withWeatherCall())
		c := newClient(ts)
		start := time.Now()
		s := c.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
			Model:    "m",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris?")},
			Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
				Name: "get_weather", Parameters: openai.FunctionParameters{"type": "object"}})},
		})
		defer s.Close()
		var acc openai.ChatCompletionAccumulator
		var deltas []time.Duration
		var finished []openai.FinishedChatCompletionToolCall
		for s.Next() {
			ch := s.Current()
			acc.AddChunk(ch)
			if len(ch.Choices) > 0 && len(ch.Choices[0].Delta.ToolCalls) > 0 {
				deltas = append(deltas, time.Since(start))
			}
			if tc, ok := acc.JustFinishedToolCall(); ok {
				finished = append(finished, tc)
			}
		}
		if err := s.Err(); err != nil {
			t.Fatalf("stream error: %v", err)
		}
		if len(deltas) != 8 || deltas[0] != ms(100) || deltas[7] != ms(170) {
			t.Errorf("tool-call deltas at %v, want 8 from 100ms to 170ms", deltas)
		}
		msg := acc.Choices[0].Message
		if len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Function.Name != weather.Name || msg.ToolCalls[0].Function.Arguments != weather.Arguments ||
			msg.ToolCalls[0].ID == "" || acc.Choices[0].FinishReason != "tool_calls" {
			t.Errorf("accumulated tool calls = %+v, finish %q, want one %s(%s) with an id, finish tool_calls", msg.ToolCalls, acc.Choices[0].FinishReason, weather.Name, weather.Arguments)
		}
		if len(finished) != 1 || finished[0].Arguments != weather.Arguments {
			t.Errorf("JustFinishedToolCall = %+v, want the call once", finished)
		}
	})
}

func TestChatToolCallsNotStreaming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := scripted(t, withWeatherCall())
		c := newClient(ts)
		res, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
			Model:    "m",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris?")},
			Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
				Name: "get_weather"})},
		})
		if err != nil {
			t.Fatalf("Chat.Completions.New: %v", err)
		}
		calls := res.Choices[0].Message.ToolCalls
		if len(calls) != 1 || calls[0].Function.Arguments != weather.Arguments || res.Choices[0].FinishReason != "tool_calls" || res.Usage.CompletionTokens != 8 {
			t.Errorf("tool calls = %+v, finish %q, %d tokens, want %s(%s), tool_calls, 8", calls, res.Choices[0].FinishReason, res.Usage.CompletionTokens, weather.Name, weather.Arguments)
		}
	})
}

// A tool call on the Responses API: a function_call output item, its
// arguments over function_call_arguments.delta events, then .done.
func TestResponsesToolCallsStreaming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := scripted(t, withWeatherCall())
		c := newClient(ts)
		start := time.Now()
		s := c.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{
			Model: "m",
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather in Paris?")},
			Tools: []responses.ToolUnionParam{responses.ToolParamOfFunction("get_weather", map[string]any{"type": "object"}, false)},
		})
		defer s.Close()
		var types []string
		var args strings.Builder
		var added, done time.Duration
		var item responses.ResponseOutputItemUnion
		var completed responses.Response
		for s.Next() {
			ev := s.Current()
			types = append(types, ev.Type)
			switch e := ev.AsAny().(type) {
			case responses.ResponseOutputItemAddedEvent:
				added = time.Since(start)
				if e.Item.Type != "function_call" || e.Item.Name != weather.Name || e.Item.CallID == "" {
					t.Errorf("item added = %+v, want a function_call of %s with a call id", e.Item, weather.Name)
				}
			case responses.ResponseFunctionCallArgumentsDeltaEvent:
				args.WriteString(e.Delta)
			case responses.ResponseFunctionCallArgumentsDoneEvent:
				done = time.Since(start)
				if e.Arguments != weather.Arguments {
					t.Errorf("arguments.done = %q, want %q", e.Arguments, weather.Arguments)
				}
			case responses.ResponseOutputItemDoneEvent:
				item = e.Item
			case responses.ResponseCompletedEvent:
				completed = e.Response
			}
		}
		if err := s.Err(); err != nil {
			t.Fatalf("stream error: %v", err)
		}
		if args.String() != weather.Arguments || added != ms(100) || done != ms(170) {
			t.Errorf("arguments %q, item added at %v, done at %v, want %q, 100ms, 170ms", args.String(), added, done, weather.Arguments)
		}
		if item.Arguments.OfString != weather.Arguments || item.Status != "completed" || len(completed.Output) != 1 || completed.Output[0].CallID != item.CallID {
			t.Errorf("item done = %+v, completed output %+v, want the whole call in both", item, completed.Output)
		}
		if n := strings.Count(strings.Join(types, " "), "response.function_call_arguments.delta"); n != 7 {
			t.Errorf("%d argument deltas, want 7 (events %v)", n, types)
		}
	})
}

// A failure mid-stream is an error event: openai-go ends a chat stream
// with the server's message, and parses the Responses "error" event.
func TestErrorEventFault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := scripted(t)
		c := newClient(ts)
		fault := option.WithHeader(simulate.FaultHeader, "error-event;after=2")
		got := chatStream(t, c, chatParams("m", 10), fault)
		if got.err == nil || !strings.Contains(got.err.Error(), "simulated fault: error-event") || len(got.arrivals) != 2 {
			t.Errorf("chat stream: %d chunks, error %v, want 2 and the server's error", len(got.arrivals), got.err)
		}
		s := c.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{
			Model: "m",
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")},
		}, fault)
		defer s.Close()
		var last responses.ResponseStreamEventUnion
		deltas := 0
		for s.Next() {
			last = s.Current()
			if last.Type == "response.output_text.delta" {
				deltas++
			}
		}
		e, ok := last.AsAny().(responses.ResponseErrorEvent)
		if s.Err() != nil || !ok || e.Code != "server_error" || !strings.Contains(e.Message, "error-event") || deltas != 2 {
			t.Errorf("responses stream: %d deltas, last event %s, error %v, want 2 deltas and an error event", deltas, last.RawJSON(), s.Err())
		}
		// Not streaming, the failure is the response: a 500.
		_, err := c.Chat.Completions.New(context.Background(), wholeChatParams("m", 10), fault)
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusInternalServerError {
			t.Errorf("non-streaming with error-event: error %v, want a 500", err)
		}
	})
}

// Two calls in one reply: each its own index (chat) or output item
// (Responses), in order, arguments intact.
func TestTwoToolCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		oslo := simulate.ToolCall{Name: "get_weather", Arguments: `{"city":"Oslo"}`}
		ts := scripted(t, simulate.WithToolCalls(func(simulate.ReplyInfo) []simulate.ToolCall {
			return []simulate.ToolCall{weather, oslo}
		}))
		c := newClient(ts)
		s := c.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
			Model:    "m",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather?")},
		})
		var acc openai.ChatCompletionAccumulator
		for s.Next() {
			acc.AddChunk(s.Current())
		}
		s.Close()
		var got []string
		for _, tc := range acc.Choices[0].Message.ToolCalls {
			got = append(got, tc.Function.Name+tc.Function.Arguments)
		}
		if want := []string{weather.Name + weather.Arguments, oslo.Name + oslo.Arguments}; s.Err() != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("chat tool calls = %q, error %v, want %q", got, s.Err(), want)
		}
		res, err := c.Responses.New(context.Background(), responses.ResponseNewParams{
			Model: "m",
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather?")},
		})
		if err != nil {
			t.Fatalf("Responses.New: %v", err)
		}
		got = got[:0]
		for _, o := range res.Output {
			got = append(got, o.Type+" "+o.Name+o.Arguments.OfString)
		}
		if want := []string{"function_call " + weather.Name + weather.Arguments, "function_call " + oslo.Name + oslo.Arguments}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("responses output = %q, want %q", got, want)
		}
	})
}
