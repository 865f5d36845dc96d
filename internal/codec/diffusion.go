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

// replaceFrames clears the text accumulated so far of each choice to
// which c, a refinement step (see diffusionFrame), brings text, so that the
// step's text replaces it, and returns the bytes cleared.
func (a *Accumulator) replaceFrames(c *openai.ChatCompletionChunk) int64 {
	var n int64
	ch := a.Acc.Choices
	for i := range c.Choices {
		if j := int(c.Choices[i].Index); c.Choices[i].Delta.Content != "" && j >= 0 && j < len(ch) {
			n += int64(len(ch[j].Message.Content))
			ch[j].Message.Content = ""
		}
	}
	return n
}
