package codec

import (
	"github.com/openai/openai-go/v3"
	"github.com/tidwall/gjson"
)

// diffusionMeta is the field of a chunk of a diffusion model's stream in
// which the server says what its content is.
const diffusionMeta = "diffusion_meta"

// diffusionFrame reports whether c is a refinement step of a diffusion
// model's answer: its content is the whole answer so far, to replace what
// came before, not a piece to append. Inception's Mercury streams so when
// the request sets "diffusing": each chunk carries
// "diffusion_meta":{"diffusion_content":true,"diffusion_progress":p}
// beside the whole text, noise settling from frame to frame, the last frame
// the answer (iowarp/clio-coder, src/engine/apis/diffusion-frames.ts and
// its test of the shape measured against the live API). A chunk without
// extra fields, any other server's, costs one length check.
func diffusionFrame(c *openai.ChatCompletionChunk) bool {
	if len(c.JSON.ExtraFields) == 0 {
		return false
	}
	f, ok := c.JSON.ExtraFields[diffusionMeta]
	return ok && gjson.Get(f.Raw(), "diffusion_content").Type == gjson.True
}

// maxFrameChoice is the highest choice index of which a run of
// refinement steps is kept, the highest openai-go's accumulator takes
// (maxStreamAccumulatorChoiceIndex, streamaccumulator.go): a chunk with
// a higher one is refused anyway, and the runs stay bounded.
const maxFrameChoice = 127

// frameRun is where a choice's run of refinement steps (see
// diffusionFrame) began: the length of its accumulated text when the
// first step of the run came, at the stream's start or after text of
// another kind (a Router's continuation on a diffusion model's route
// writes a new message after the route before it, each step holding the
// continuation's text alone). Each step replaces the text from there on,
// not the text before it. The zero value is no run under way.
type frameRun struct {
	open bool
	base int
}

// framesCleared returns the bytes of accumulated text that c, a
// refinement step, replaces, the text of the runs it carries on; it
// changes nothing, so that a step refused (see Over) leaves the step
// before it as the text.
func (a *Accumulator) framesCleared(c *openai.ChatCompletionChunk) int64 {
	var n int64
	ch := a.Acc.Choices
	for i := range c.Choices {
		if j := int(c.Choices[i].Index); c.Choices[i].Delta.Content != "" && j >= 0 && j < len(ch) {
			if j < len(a.runs) && a.runs[j].open {
				n += int64(len(ch[j].Message.Content) - a.runs[j].base)
			}
		}
	}
	return n
}

// replaceFrames cuts the text accumulated so far of each choice to which
// c, a refinement step (see diffusionFrame), brings text back to where
// its run of steps began, opening the run at the text's end when none is
// under way, so that the step's text replaces that of the steps before it.
func (a *Accumulator) replaceFrames(c *openai.ChatCompletionChunk) {
	ch := a.Acc.Choices
	for i := range c.Choices {
		j := int(c.Choices[i].Index)
		if c.Choices[i].Delta.Content == "" || j < 0 || j > maxFrameChoice {
			continue // a choice openai-go's accumulator refuses
		}
		if j >= len(a.runs) {
			a.runs = append(a.runs, make([]frameRun, j+1-len(a.runs))...)
		}
		switch r := &a.runs[j]; {
		case j >= len(ch): // the choice's first text, which the step brings
			*r = frameRun{open: true}
		case r.open:
			ch[j].Message.Content = ch[j].Message.Content[:r.base]
		default:
			*r = frameRun{open: true, base: len(ch[j].Message.Content)}
		}
	}
}

// endFrames ends the run of refinement steps of each choice to which c,
// a chunk of another kind, brings text: a step after it starts a run of
// its own. A stream without steps has no run and pays nothing here.
func (a *Accumulator) endFrames(c *openai.ChatCompletionChunk) {
	for i := range c.Choices {
		if j := int(c.Choices[i].Index); c.Choices[i].Delta.Content != "" && j >= 0 && j < len(a.runs) {
			a.runs[j].open = false
		}
	}
}
