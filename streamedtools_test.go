package tokenpace_test

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/tidwall/gjson"

	"github.com/tokenpace/tokenpace"
)

// TestStreamedTools: llama.cpp's server from February to May 2025
// refused a streamed request with tools, 500 "Cannot use tools with
// stream", and a tool without a description too (recorded live from its
// build of March 2025). openai-go sent the stream three times, each
// refused. The caller now gets the answer as a stream: the request is
// sent again whole, then again with the tool's description filled in,
// and the whole answer, a tool call, arrives as one chunk, timed as it
// arrived; the next stream to that server goes whole, filled in, at once.
func TestStreamedTools(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		refused := loadRecording(t, "llamacpp-2025-03-tools-stream-refused.jsonl")
		noDescription := loadRecording(t, "llamacpp-2025-03-tools-no-description.jsonl")
		whole := loadRecording(t, "llamacpp-2025-03-tools-whole.jsonl")
		var mu sync.Mutex
		var streamed []bool // whether each request asked for a stream
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			stream := gjson.GetBytes(b, "stream").Bool()
			mu.Lock()
			streamed = append(streamed, stream)
			mu.Unlock()
			switch {
			case stream:
				replay(refused)(w, r)
			case !gjson.GetBytes(b, "tools.0.function.description").Exists():
				replay(noDescription)(w, r)
			default:
				replay(whole)(w, r)
			}
		}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		p := openai.ChatCompletionNewParams{Model: "tiny",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris and Lyon?")},
			Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "get_weather",
				Parameters: openai.FunctionParameters{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}})}}

		start := time.Now()
		s := c.NewStreaming(context.Background(), p)
		events := 0
		for s.Next() {
			events++
		}
		_ = s.Close()
		tm := s.Timing()
		acc := s.Accumulated()
		if s.Err() != nil || events != 1 || len(acc.Choices) != 1 || acc.Choices[0].FinishReason != "tool_calls" ||
			len(acc.Choices[0].Message.ToolCalls) != 1 || acc.Choices[0].Message.ToolCalls[0].Function.Name != "get_weather" {
			t.Fatalf("err %v, %d events, %+v; want one event with the call to get_weather", s.Err(), events, acc.Choices)
		}
		if !tm.UsageReported || tm.OutputTokens != 290 || len(tm.HTTP) != 3 {
			t.Errorf("usage (%v, %d), %d HTTP attempts; want (true, 290), 3", tm.UsageReported, tm.OutputTokens, len(tm.HTTP))
		}
		// The one event came with the whole answer, after both refusals.
		if want := ms(refused.Reads[0].TMS) + ms(noDescription.Reads[0].TMS) + ms(whole.Reads[0].TMS); tm.TTFT() < want || tm.TTFT() != tm.E2E() {
			t.Errorf("TTFT %v, E2E %v; want both the whole answer's arrival, at least %v", tm.TTFT(), tm.E2E(), want)
		}
		if time.Since(start) < tm.E2E() {
			t.Errorf("the caller waited %v, under the E2E %v", time.Since(start), tm.E2E())
		}

		s = c.NewStreaming(context.Background(), p)
		for s.Next() {
		}
		_ = s.Close()
		if s.Err() != nil || len(s.Timing().HTTP) != 1 {
			t.Errorf("second stream: err %v, %d HTTP attempts; want the answer at once", s.Err(), len(s.Timing().HTTP))
		}
		mu.Lock()
		defer mu.Unlock()
		if want := []bool{true, false, false, false}; len(streamed) != len(want) || streamed[0] != want[0] || streamed[1] || streamed[2] || streamed[3] {
			t.Errorf("requests streamed %v, want %v", streamed, want)
		}
	})
}
