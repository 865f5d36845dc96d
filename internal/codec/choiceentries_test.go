package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

func TestChoiceEntries(t *testing.T) {
	chunk := func(idx ...int64) *openai.ChatCompletionChunk {
		c := &openai.ChatCompletionChunk{}
		for _, i := range idx {
			c.Choices = append(c.Choices, openai.ChatCompletionChunkChoice{Index: i})
		}
		return c
	}
	var off ChoiceEntries
	off.Add(chunk(0, 1))
	if u := off.Usage(chunk(0, 1), Usage{Prompt: 9, Output: 4}); u.Output != 4 {
		t.Errorf("off: Usage = %+v, want the server's", u)
	}
	var e ChoiceEntries
	e.Start(2)
	for _, c := range []*openai.ChatCompletionChunk{chunk(0, 1), chunk(0, 1), chunk(0, 1), chunk(1, 1), chunk(7, -1)} {
		e.Add(c)
	}
	// The usage is choice 1's (the last entry's): choice 0's 3 entries
	// are added; indexes out of range count nowhere.
	if u := e.Usage(chunk(1, 1), Usage{Prompt: 9, Output: 5}); u.Prompt != 9 || u.Output != 8 {
		t.Errorf("Usage = %+v, want 9 prompt and 5 + 3 output", u)
	}
	if u := e.Usage(chunk(), Usage{Prompt: 9, Output: 5}); u.Output != 5 {
		t.Errorf("Usage without choices = %+v, want the server's", u)
	}
}
