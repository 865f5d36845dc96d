package codec

import (
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestDiffusionFrames: the refinement steps of a diffusion model's stream
// (Mercury's with "diffusing" set) each replace the text before them, so
// that the accumulation holds the last, and count as no tokens, so that a
// complete answer of more steps than its max tokens keeps its "stop"; a
// chunk whose diffusion_meta says it is no whole text, or one without it,
// appends as any other.
func TestDiffusionFrames(t *testing.T) {
	const (
		frame1  = `{"id":"c","model":"mercury-2","choices":[{"index":0,"delta":{"role":"assistant","content":"H#llo w%rld","tool_calls":[]},"finish_reason":null}],"diffusion_meta":{"diffusion_content":true,"diffusion_progress":0},"reasoning_summary":null}`
		frame2  = `{"id":"c","model":"mercury-2","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello w%rld","tool_calls":[]},"finish_reason":null}],"diffusion_meta":{"diffusion_content":true,"diffusion_progress":0.5},"reasoning_summary":null}`
		frame3  = `{"id":"c","model":"mercury-2","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello world","tool_calls":[]},"finish_reason":"stop"}],"diffusion_meta":{"diffusion_content":true,"diffusion_progress":1},"reasoning_summary":null}`
		closing = `{"id":"c","model":"mercury-2","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
		notMeta = `{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}],"diffusion_meta":{"diffusion_content":false}}`
		plain   = `{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":" world"},"finish_reason":"stop"}]}`
	)
	for _, tt := range []struct {
		name   string
		chunks []string
		limit  int64
		text   string
		finish string
	}{
		{"frames replace", []string{frame1, frame2, frame3, closing}, 2, "Hello world", "stop"},
		{"not whole text", []string{notMeta, plain}, 0, "Hello world", "stop"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Chat(openai.ChatCompletionNewParams{Model: "m"}, true)
			a := Accumulator{Limit: tt.limit}
			for _, s := range tt.chunks {
				ev, err := r.Decode([]byte(s))
				if err != nil {
					t.Fatalf("Decode(%s) = %v", s, err)
				}
				if !a.Add(&ev) {
					t.Fatalf("Add(%s) = false", s)
				}
			}
			if got := a.Text(); got != tt.text {
				t.Errorf("Text() = %q, want %q", got, tt.text)
			}
			c := a.Completion()
			if got := c.Choices[0].Message.Content; got != tt.text {
				t.Errorf("Completion()'s content = %q, want %q", got, tt.text)
			}
			if got := c.Choices[0].FinishReason; got != tt.finish {
				t.Errorf("Completion()'s finish = %q, want %q", got, tt.finish)
			}
		})
	}
}

// TestDiffusionFramesAfterText: refinement steps that come after text of
// another kind, as a Router's continuation on a diffusion model's route
// does after the text of the route before it (the model writes a new
// message after the assistant prefix, so each step holds the
// continuation's text alone), replace only the text their run of steps
// brought, choice by choice: the text before the run is kept.
func TestDiffusionFramesAfterText(t *testing.T) {
	const (
		plain  = `{"id":"c","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"The capital "},"finish_reason":null},{"index":1,"delta":{"role":"assistant","content":"Paris "},"finish_reason":null}]}`
		frame1 = `{"id":"c","model":"mercury-2","choices":[{"index":0,"delta":{"role":"assistant","content":"of Fr#nce i$","tool_calls":[]},"finish_reason":null}],"diffusion_meta":{"diffusion_content":true,"diffusion_progress":0}}`
		frame2 = `{"id":"c","model":"mercury-2","choices":[{"index":0,"delta":{"role":"assistant","content":"of France is Paris.","tool_calls":[]},"finish_reason":"stop"}],"diffusion_meta":{"diffusion_content":true,"diffusion_progress":1}}`
		more   = `{"id":"c","model":"m","choices":[{"index":1,"delta":{"content":"it is."},"finish_reason":"stop"}]}`
	)
	r := Chat(openai.ChatCompletionNewParams{Model: "m", N: openai.Int(2)}, true)
	var a Accumulator
	for _, s := range []string{plain, frame1, frame2, more} {
		ev, err := r.Decode([]byte(s))
		if err != nil {
			t.Fatalf("Decode(%s) = %v", s, err)
		}
		if !a.Add(&ev) {
			t.Fatalf("Add(%s) = false", s)
		}
	}
	if got, want := a.Text(), "The capital of France is Paris."; got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
	ch := a.Completion().Choices
	if len(ch) != 2 || ch[1].Message.Content != "Paris it is." {
		t.Errorf("Completion()'s choices = %+v, want the second's text %q", ch, "Paris it is.")
	}
}

// TestDiffusionFramesOverBound: a refinement step that would take the
// output past MaxOutputBytes is refused, and the step before it is kept
// as the text, not cleared for the step that never came.
func TestDiffusionFramesOverBound(t *testing.T) {
	frame := func(text string) *Event {
		c := &openai.ChatCompletionChunk{ID: "c", Choices: []openai.ChatCompletionChunkChoice{{Delta: openai.ChatCompletionChunkChoiceDelta{Content: text}}}}
		return &Event{Chunk: c, Orig: c, Frame: true}
	}
	var a Accumulator
	if !a.Add(frame("The capi%al of France i$ Paris.")) {
		t.Fatal("Add(a small step) = false")
	}
	if a.Add(frame(strings.Repeat("x", MaxOutputBytes+1))) || !a.Over() {
		t.Fatalf("Add(a step over the bound) accepted, Over() = %v; want refused and true", a.Over())
	}
	if got, want := a.Text(), "The capi%al of France i$ Paris."; got != want {
		t.Errorf("Text() = %q, want the step before %q", got, want)
	}
}
