package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestLaterStop checks that a "stop" sent after a choice's other finish
// reason gives way to it, and that nothing else is changed.
func TestLaterStop(t *testing.T) {
	chunk := func(index int64, reason string) *openai.ChatCompletionChunk {
		return &openai.ChatCompletionChunk{Choices: []openai.ChatCompletionChunkChoice{{Index: index, FinishReason: reason}}}
	}
	tests := []struct {
		name    string
		reasons []string // finish reasons of choice 0, a chunk each
		want    string   // the last chunk's, once kept
	}{
		{"Arch: length, then message_stop's stop", []string{"", "length", "stop"}, "length"},
		{"Arch: tool_calls, then stop", []string{"tool_calls", "stop"}, "tool_calls"},
		{"stop twice", []string{"stop", "stop"}, "stop"},
		{"stop, then length: not a later stop", []string{"stop", "length"}, "length"},
		{"one finish", []string{"", "length"}, "length"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l LaterStop
			var c *openai.ChatCompletionChunk
			for _, r := range tt.reasons {
				c = chunk(0, r)
				l.Keep(c)
			}
			if got := c.Choices[0].FinishReason; got != tt.want {
				t.Errorf("Keep(%q) = %q, want %q", tt.reasons, got, tt.want)
			}
		})
	}
	t.Run("choices apart", func(t *testing.T) {
		var l LaterStop
		l.Keep(chunk(1, "length"))
		c := chunk(0, "stop")
		l.Keep(c)
		if got := c.Choices[0].FinishReason; got != "stop" {
			t.Errorf("choice 0 after choice 1's length = %q, want %q", got, "stop")
		}
	})
}
