package codec

import (
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// The output an Accumulator holds is bounded: a chunk that would take it
// past MaxOutputBytes is refused, and Over says why; the text before it
// is kept whole. Text, tool arguments, audio and reasoning all count.
func TestAccumulatorOutputBound(t *testing.T) {
	piece := strings.Repeat("x", 1<<20)
	chunk := func(d openai.ChatCompletionChunkChoiceDelta) *Event {
		c := &openai.ChatCompletionChunk{ID: "c1", Choices: []openai.ChatCompletionChunkChoice{{Delta: d}}}
		return &Event{Chunk: c, Orig: c, Outputs: 1}
	}
	for _, tc := range []struct {
		name  string
		delta openai.ChatCompletionChunkChoiceDelta
		fit   int // chunks within the bound
	}{
		{"text", openai.ChatCompletionChunkChoiceDelta{Content: piece}, 64},
		{"tool arguments (with the call's id and name)", openai.ChatCompletionChunkChoiceDelta{ToolCalls: []openai.ChatCompletionChunkChoiceDeltaToolCall{
			{Index: 0, ID: "call_1", Function: openai.ChatCompletionChunkChoiceDeltaToolCallFunction{Name: "f", Arguments: piece}}}}, 63},
	} {
		var a Accumulator
		added := 0
		for added < 100 && a.Add(chunk(tc.delta)) {
			added++
		}
		if added != tc.fit || !a.Over() {
			t.Errorf("%s: %d chunks of 1 MiB added, Over() = %v; want %d and true", tc.name, added, a.Over(), tc.fit)
		}
	}
	var a Accumulator
	a.Add(chunk(openai.ChatCompletionChunkChoiceDelta{Content: piece}))
	if a.Over() || len(a.Completion().Choices[0].Message.Content) != 1<<20 {
		t.Errorf("one chunk of 1 MiB: Over() = %v, want false and its text whole", a.Over())
	}
}

// A Responses stream's items given whole (output_item.done) count towards
// the bound: a Router that continues a response keeps them, 52 MiB for
// 5,000 items of 10 KiB, with no bound of their own.
func TestAccumulatorOutputBoundItems(t *testing.T) {
	item := `{"type":"response.output_item.done","output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"completed","action":{"query":"` + strings.Repeat("q", 1<<20) + `"}}}`
	var r response
	var a Accumulator
	added := 0
	for added < 100 {
		ev, err := r.Decode([]byte(item))
		if err != nil {
			t.Fatal(err)
		}
		if !a.Add(&ev) {
			break
		}
		added++
	}
	if added != 63 || !a.Over() {
		t.Errorf("%d items of 1 MiB added, Over() = %v; want 63 and true", added, a.Over())
	}
}
