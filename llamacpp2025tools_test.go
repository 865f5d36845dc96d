package tokenpace_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/tidwall/gjson"

	"github.com/tokenpace/tokenpace"
)

// Tool calls on llama.cpp's server of 2025, whose builds refused what
// OpenAI's API allows: a tool without a description or parameters, and a
// stream with tools.

// TestBareTools: llama.cpp's server of 2025 refuses with 500 a request
// whose function tool has no description, or no parameters (recorded
// live from its build of July 2025), though OpenAI's API makes both
// optional and openai-go leaves them out. openai-go sent it three times,
// each refused. The caller now gets the answer: the request is sent again
// at once with an empty description and parameters without properties
// where they lacked, the tools that had them unchanged, and the next
// request to that server goes so from the start.
func TestBareTools(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		noDescription := loadRecording(t, "llamacpp-2025-tools-no-description.jsonl")
		noParameters := loadRecording(t, "llamacpp-2025-tools-no-parameters.jsonl")
		answer := loadRecording(t, "llamacpp-2025-tools-stream.jsonl")
		url, hc, bodies := bodyServer(t, func(b []byte) recording {
			for _, tool := range gjson.GetBytes(b, "tools").Array() {
				switch {
				case !tool.Get("function.description").Exists():
					return noDescription
				case !tool.Get("function.parameters").Exists():
					return noParameters
				}
			}
			return answer
		})
		c := tokenpace.NewClient(openaiClient(url, hc))
		p := chat("tiny", 8)
		p.Tools = []openai.ChatCompletionToolUnionParam{
			openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "get_weather",
				Parameters: openai.FunctionParameters{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}),
			openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "now", Description: openai.String("the time")}),
		}
		const filled = `[{"function":{"name":"get_weather","parameters":{"properties":{"city":{"type":"string"}},"type":"object"},"description":""},"type":"function"},{"function":{"name":"now","description":"the time","parameters":{"type":"object","properties":{}}},"type":"function"}]`

		got := readChat(c.NewStreaming(context.Background(), p))
		// The server's answer: its generic tool-call format held back
		// 8 tokens that parsed as neither text nor a call.
		if got.err != nil || got.tm.FinishReason != "length" || got.tm.OutputTokens != 8 {
			t.Fatalf("first call: finish %q, %d output tokens, err %v; want the answer: \"length\", 8", got.tm.FinishReason, got.tm.OutputTokens, got.err)
		}
		if n := len(got.tm.HTTP); n != 2 || got.tm.HTTP[0].Status != http.StatusInternalServerError {
			t.Errorf("first call: %d HTTP attempts, want 2, the first refused with 500", n)
		}
		got = readChat(c.NewStreaming(context.Background(), p))
		if got.err != nil || len(got.tm.HTTP) != 1 {
			t.Errorf("second call: err %v, %d HTTP attempts; want the answer at once", got.err, len(got.tm.HTTP))
		}
		var sent []string // the tools of every request, as sent
		for _, b := range bodies() {
			sent = append(sent, gjson.GetBytes(b, "tools").Raw)
		}
		if len(sent) != 3 || sent[1] != filled || sent[2] != filled {
			t.Errorf("tools sent:\n%s\nwant the caller's, then twice\n%s", sent, filled)
		}
	})
}

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
		url, hc, bodies := bodyServer(t, func(b []byte) recording {
			switch {
			case gjson.GetBytes(b, "stream").Bool():
				return refused
			case !gjson.GetBytes(b, "tools.0.function.description").Exists():
				return noDescription
			}
			return whole
		})
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
		if ct := tm.Streaming.ContentType; !strings.HasPrefix(ct, "application/json") {
			t.Errorf("Timing().Streaming.ContentType %q, want the server's application/json: it did not stream", ct)
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
		var streamed []bool // whether each request asked for a stream
		for _, b := range bodies() {
			streamed = append(streamed, gjson.GetBytes(b, "stream").Bool())
		}
		if want := []bool{true, false, false, false}; len(streamed) != len(want) || !streamed[0] || streamed[1] || streamed[2] || streamed[3] {
			t.Errorf("requests streamed %v, want %v", streamed, want)
		}
	})
}

// TestStreamedToolsCancelled: a caller that gives up while the whole
// answer is on its way (this build took 120 s for it) gets its context's
// error when it gives up, not when the answer ends.
func TestStreamedToolsCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		refused := loadRecording(t, "llamacpp-2025-03-tools-stream-refused.jsonl")
		whole := loadRecording(t, "llamacpp-2025-03-tools-whole.jsonl")
		url, hc, _ := bodyServer(t, func(b []byte) recording {
			if gjson.GetBytes(b, "stream").Bool() {
				return refused
			}
			return whole
		})
		c := tokenpace.NewClient(openaiClient(url, hc))
		p := chat("tiny", 8)
		p.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "now", Description: openai.String("the time"),
			Parameters: openai.FunctionParameters{"type": "object"}})}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		start := time.Now()
		s := c.NewStreaming(ctx, p)
		for s.Next() {
		}
		_ = s.Close()
		if waited := time.Since(start); !errors.Is(s.Err(), context.DeadlineExceeded) || waited > 11*time.Second {
			t.Errorf("err %v after %v; want the context's deadline at 10 s", s.Err(), waited)
		}
	})
}

// bodyServer serves each request the recording route picks by its body,
// and returns the bodies of every request served so far.
func bodyServer(t *testing.T, route func(body []byte) recording) (string, *http.Client, func() [][]byte) {
	var mu sync.Mutex
	var bodies [][]byte
	url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		replay(route(b))(w, r)
	}))
	return url, hc, func() [][]byte {
		mu.Lock()
		defer mu.Unlock()
		return bodies
	}
}
