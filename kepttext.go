package tokenpace

// keptText is text of a call's first choice kept across its tries, its
// content or its reasoning: what the caller took, or that and what waits
// for it. A diffusion model's refinement step (codec.Event.Frame) holds
// the whole text of its run of steps, which began at the first step after
// text of another kind, or at the start: it replaces the text from there
// on, not the text before it, for a Router's continuation on a diffusion
// model's route streams steps that hold its own text alone, the model
// writing a new message after the assistant prefix. The text is a byte
// slice, which can be cut back to where the run began, as a
// strings.Builder cannot; text without steps is appended as a Builder
// appends it, at no further cost. The zero value is empty.
type keptText struct {
	b []byte
	// base is where the run of steps under way began, when inRun.
	base  int
	inRun bool
}

// write appends s, text of another kind than a step, which ends the run
// of steps under way, if any.
func (k *keptText) write(s string) {
	if s != "" {
		k.inRun = false
		k.b = append(k.b, s...)
	}
}

// step replaces the text of the run of steps under way with s, a
// refinement step's text, starting a run at the text's end if none is
// under way.
func (k *keptText) step(s string) {
	if !k.inRun {
		k.base, k.inRun = len(k.b), true
	}
	k.b = append(k.b[:k.base], s...)
}

// endRun ends the run of steps under way, if any: a step after it starts
// a run of its own.
func (k *keptText) endRun() { k.inRun = false }

// String returns the text.
func (k *keptText) String() string { return string(k.b) }

// Len returns the text's length in bytes.
func (k *keptText) Len() int { return len(k.b) }

// reset empties the text.
func (k *keptText) reset() { *k = keptText{} }

// clone returns a copy of k that its own steps and writes leave k as it is.
func (k *keptText) clone() keptText {
	c := *k
	c.b = append([]byte(nil), k.b...)
	return c
}
