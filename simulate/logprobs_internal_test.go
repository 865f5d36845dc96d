package simulate

import (
	"math/rand/v2"
	"testing"
)

// A chunk of a stream that did not ask for logprobs costs no allocation:
// asking for them elsewhere adds nothing to the common path.
func TestChunkWithoutLogprobsAllocatesNothing(t *testing.T) {
	r := &responder{
		f:        newChatFormat("chatcmpl-1", 1, "m", false),
		text:     generatedText(rand.New(rand.NewPCG(1, 2)), 1<<20),
		n:        1 << 20,
		stream:   true,
		roleSent: true,
		buf:      make([]byte, 0, 4096),
	}
	if n := testing.AllocsPerRun(1000, func() {
		r.buf, r.pending = r.buf[:0], 1
		r.chunk()
	}); n != 0 {
		t.Errorf("chunk() without logprobs allocates %v times, want 0", n)
	}
}
