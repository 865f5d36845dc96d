package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestEveryChunkFinish: a finish reason ends its choice until the choice
// sends text after one (mlx-omni-server's "stop" with every chunk); from
// then on only a finish reason on a chunk without output does. Audio after
// the text's finish (vLLM-Omni's spoken answer) shows no such habit.
func TestEveryChunkFinish(t *testing.T) {
	text := func(s, finish string) openai.ChatCompletionChunkChoice {
		return openai.ChatCompletionChunkChoice{Delta: openai.ChatCompletionChunkChoiceDelta{Content: s}, FinishReason: finish}
	}
	audio := openai.ChatCompletionChunkChoice{FinishReason: "stop"}
	audio.Delta.Audio.Data = "UklGRg=="
	for _, tc := range []struct {
		name   string
		chunks []openai.ChatCompletionChunkChoice
		ends   []bool
	}{
		{"vLLM", []openai.ChatCompletionChunkChoice{text("a", ""), text("b", "stop")}, []bool{false, true}},
		{"mlx-omni-server", []openai.ChatCompletionChunkChoice{text("a", "stop"), text("b", "stop"), text("c", "length"), text("", "stop")},
			[]bool{true, false, false, true}},
		{"vLLM-Omni", []openai.ChatCompletionChunkChoice{text("a", "stop"), audio}, []bool{true, true}},
	} {
		var e EveryChunkFinish
		var finished Finished
		for i, ch := range tc.chunks {
			ends, _ := e.Ends(&ch, &finished)
			if ends != tc.ends[i] {
				t.Errorf("%s: chunk %d: Ends = %v, want %v", tc.name, i, ends, tc.ends[i])
			}
			if ends {
				finished.Add(ch.Index, 1)
			}
		}
	}
}

// TestEveryChunkFinishEndsAtUsage: once a stream showed the habit, a
// chunk of no choices with the usage ends an answer whose choices all
// sent a finish reason (Microsoft Agent Framework's hosted endpoint writes
// no finish of its own at the end); before the habit, or with a choice
// unfinished, or without usage, it does not.
func TestEveryChunkFinishEndsAtUsage(t *testing.T) {
	text := func(s string) openai.ChatCompletionChunkChoice {
		return openai.ChatCompletionChunkChoice{Delta: openai.ChatCompletionChunkChoiceDelta{Content: s}, FinishReason: "stop"}
	}
	var e EveryChunkFinish
	var finished Finished
	if e.EndsAtUsage(0, true, &finished, 1) {
		t.Errorf("EndsAtUsage before any chunk = true, want false")
	}
	for _, s := range []string{"a", "b"} {
		ch := text(s)
		if ends, _ := e.Ends(&ch, &finished); ends {
			finished.Add(ch.Index, 1)
		}
	}
	for _, tc := range []struct {
		name     string
		choices  int
		hasUsage bool
		want     int
		ends     bool
	}{
		{"usage, no choices", 0, true, 1, true},
		{"no usage", 0, false, 1, false},
		{"usage beside a choice", 1, true, 1, false},
		{"a second choice unfinished", 0, true, 2, false},
	} {
		if got := e.EndsAtUsage(tc.choices, tc.hasUsage, &finished, tc.want); got != tc.ends {
			t.Errorf("%s: EndsAtUsage = %v, want %v", tc.name, got, tc.ends)
		}
	}
}
