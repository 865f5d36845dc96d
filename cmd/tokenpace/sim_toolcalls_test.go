package main

import (
	"context"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// --tool-call makes the simulator call the functions a request offers,
// streamed over deltas, and reply with text to a request that offers
// none of them.
func TestSimToolCallFlag(t *testing.T) {
	addr := startSim(t, "--ttft", "1ms", "--itl", "1ms",
		"--tool-call", `get_weather={"city":"Paris"}`, "--tool-call", `get_time={"tz":"CET"}`)
	c := newSimClient(t, "http://"+addr+"/v1")
	tests := []struct {
		name  string
		tools []string
		want  []string // NAME=ARGUMENTS of each call
	}{
		{"offers both", []string{"get_time", "get_weather"}, []string{`get_weather={"city":"Paris"}`, `get_time={"tz":"CET"}`}},
		{"offers one", []string{"get_time"}, []string{`get_time={"tz":"CET"}`}},
		{"offers another", []string{"search"}, nil},
		{"offers none", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := openai.ChatCompletionNewParams{
				Model:     "sim",
				Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
				MaxTokens: openai.Int(50),
			}
			for _, name := range tt.tools {
				p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: name}))
			}
			s := c.Chat.Completions.NewStreaming(context.Background(), p)
			var acc openai.ChatCompletionAccumulator
			deltas := 0
			for s.Next() {
				ch := s.Current()
				acc.AddChunk(ch)
				if len(ch.Choices) > 0 && len(ch.Choices[0].Delta.ToolCalls) > 0 {
					deltas++
				}
			}
			if err := s.Err(); err != nil {
				t.Fatalf("stream error = %v", err)
			}
			var got []string
			m := acc.Choices[0].Message
			for _, tc := range m.ToolCalls {
				got = append(got, tc.Function.Name+"="+tc.Function.Arguments)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("calls = %q, want %q", got, tt.want)
			}
			if len(tt.want) > 0 && (deltas <= len(tt.want) || acc.Choices[0].FinishReason != "tool_calls") {
				t.Errorf("%d tool-call deltas, finish %q; want the arguments over several deltas, finish tool_calls", deltas, acc.Choices[0].FinishReason)
			}
			if len(tt.want) == 0 && m.Content == "" {
				t.Errorf("content = %q, want text", m.Content)
			}
		})
	}
}
