package codec

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestLocalAIError checks that LocalAI's completions error chunk is read
// as the server's error, and that a chunk of the same words from another
// server, or one LocalAI's answer could make, stays text.
func TestLocalAIError(t *testing.T) {
	req := Completion(openai.CompletionNewParams{}, true)
	const id = `"id":"3f6d2b1e-8c4a-4e7f-9b2d-5a1c0e9f7d3b","model":"m"`
	tests := []struct {
		name, data, wantErr, wantText string
	}{
		{name: "LocalAI error chunk",
			data:    `{"created":1,"object":"text_completion",` + id + `,"choices":[{"index":0,"finish_reason":"stop","text":"Internal error: backend lost"}]}`,
			wantErr: "Internal error: backend lost"},
		{name: "LocalAI text before the finish",
			data:     `{"created":1,"object":"text_completion",` + id + `,"choices":[{"index":0,"finish_reason":null,"text":"Internal error: backend lost"}]}`,
			wantText: "Internal error: backend lost"},
		{name: "LocalAI shape with usage",
			data:     `{"created":1,"object":"text_completion",` + id + `,"choices":[{"index":0,"finish_reason":"stop","text":"Internal error: x"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
			wantText: "Internal error: x"},
		{name: "another server's id",
			data:     `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","text":"Internal error: x"}]}`,
			wantText: "Internal error: x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := req.Decode([]byte(tt.data))
			var ce *Error
			switch {
			case tt.wantErr != "":
				if !errors.As(err, &ce) || ce.Server == nil {
					t.Fatalf("Decode(%s) = %v, want a server error", tt.data, err)
				}
				var oe openai.Error
				if ferr := ce.Server.Fill(&oe); ferr != nil || oe.Message != tt.wantErr {
					t.Errorf("Decode(%s) message = %q (%v), want %q", tt.data, oe.Message, ferr, tt.wantErr)
				}
			case err != nil:
				t.Fatalf("Decode(%s) = %v, want text", tt.data, err)
			case len(ev.Chunk.Choices) != 1 || ev.Chunk.Choices[0].Delta.Content != tt.wantText:
				t.Errorf("Decode(%s) text = %+v, want %q", tt.data, ev.Chunk.Choices, tt.wantText)
			}
		})
	}
}

// TestServerRanTools checks that a choice with tool calls that its
// server finished "stop" finishes for "tool_calls" in the accumulated
// answer, and keeps "stop" when the server sent the calls' results
// itself (LocalAI's MCP tools), whatever the request offered.
func TestServerRanTools(t *testing.T) {
	call := `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"c0","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}}]}`
	result := `{"name":"get_weather","result":"Paris: 18°C","type":"mcp_tool_result"}`
	text := `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"18°C."}}]}`
	stop := `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	for _, tt := range []struct {
		name   string
		events []string
		want   string
	}{
		{"the caller's calls", []string{call, stop}, "tool_calls"},
		{"the server's own, with their results", []string{call, result, text, stop}, "stop"},
	} {
		var a Accumulator
		for _, data := range tt.events {
			var c openai.ChatCompletionChunk
			if err := json.Unmarshal([]byte(data), &c); err != nil {
				t.Fatal(err)
			}
			a.Add(&Event{Chunk: &c})
		}
		if got := a.Completion().Choices[0].FinishReason; got != tt.want {
			t.Errorf("%s: finish reason = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestServerToolRounds: LocalAI runs the model again after each round of
// its own MCP calls, in the same stream, and numbers each round's calls
// from index 0 under the same ids (the request's id and the index). Each
// round's call is a call of its own, its arguments whole; before, the
// second round's arguments were appended to the first's.
func TestServerToolRounds(t *testing.T) {
	call := func(args string) string {
		return `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"c-0","type":"function","function":{"name":"search","arguments":""}}]}}]}` +
			"\n" + `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"c-0","type":"function","function":{"arguments":` + strconv.Quote(args) + `}}]}}]}`
	}
	result := `{"name":"search","result":"none","type":"mcp_tool_result"}`
	var a Accumulator
	for _, data := range strings.Split(call(`{"q":"a"}`)+"\n"+result+"\n"+call(`{"q":"b"}`)+"\n"+result, "\n") {
		var c openai.ChatCompletionChunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatal(err)
		}
		a.Add(&Event{Chunk: &c, ToolCall: len(c.Choices) > 0})
	}
	var got []string
	for _, tc := range a.Completion().Choices[0].Message.ToolCalls {
		got = append(got, tc.Function.Name+tc.Function.Arguments)
	}
	if want := []string{`search{"q":"a"}`, `search{"q":"b"}`}; !slices.Equal(got, want) {
		t.Errorf("tool calls = %q, want %q", got, want)
	}
}
