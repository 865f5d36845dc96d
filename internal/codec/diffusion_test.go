package codec

import (
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
