package tokenpace

import (
	"time"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// arrived is one decoded event (its chat view in Chunk, as its API sent
// it in Orig), when its bytes arrived, and what it counts for in the
// bound on unread chunks.
type arrived struct {
	codec.Event
	at   time.Time
	size int
}

// chunkQueue holds the chunks an attempt's reader delivered that its
// consumer has not taken, and what a cut lets through of them. It has no
// lock of its own: the attempt's mu guards it, since a delivery changes
// the queue, the Timing and the consumer's wake-up together. Only its
// methods touch its fields.
type chunkQueue struct {
	pending []arrived // arrived, not yet taken
	unread  int       // what pending takes decoded (see codec.Cost)
	full    bool      // the reader waits on room
	room    chan struct{}
	taken   int // chunks handed to the consumer

	// Once cut, only the first limit chunks (outLimit output-bearing
	// ones) reach the consumer.
	isCut           bool
	limit, outLimit int
	// noCont: a chunk that reaches the consumer carries a tool call,
	// audio, a refusal or a diffusion model's refinement step (noise
	// until its last), or is of an answer its server speaks once its
	// text is whole (codec.Event.Spoken), or the server rejected the answer once finished
	// (codec.AnswerRejected): output no continuation can carry on (see
	// toolcall.go).
	noCont bool
}

// push queues ar, which counts size against max (no bound when max is
// 0), and reports whether the queue is now full: the reader then waits
// on room before it reads on.
func (q *chunkQueue) push(ar arrived, size, max int) (full bool) {
	if !q.isCut && (ar.ToolCall || ar.Audio || ar.Refusal || ar.Frame || ar.Spoken) {
		q.noCont = true
	}
	q.pending = append(q.pending, ar)
	q.unread += size
	if max == 0 || q.unread <= max {
		return false
	}
	q.full = true
	if q.room == nil {
		q.room = make(chan struct{}, 1)
	}
	return true
}

// roomMade returns the channel on which a full queue says it has room.
func (q *chunkQueue) roomMade() <-chan struct{} { return q.room }

// queued returns every chunk queued, cut or not: what a plain call's
// caller, never cut, takes.
func (q *chunkQueue) queued() []arrived { return q.pending }

// waiting returns the chunks waiting, as far as a cut lets them through,
// and whether a cut lets no more through.
func (q *chunkQueue) waiting() (p []arrived, closed bool) {
	p = q.pending
	if q.isCut {
		n := max(q.limit-q.taken, 0)
		return p[:min(len(p), n)], n == 0
	}
	return p, false
}

// handOver hands p, the chunks the consumer may take, over to it, and
// keeps buf (drained) for the next ones.
func (q *chunkQueue) handOver(p, buf []arrived) []arrived {
	clear(buf) // drop the taken chunks, for the collector
	q.pending = buf[:0]
	q.taken += len(p)
	q.unread = 0
	if q.full {
		q.full = false
		select {
		case q.room <- struct{}{}:
		default: // a token is there already
		}
	}
	return p
}

// cut lets through from now on only the chunks queued or taken so far, of
// which outputs are output-bearing.
func (q *chunkQueue) cut(outputs int) {
	if !q.isCut {
		q.isCut = true
		q.limit = q.taken + len(q.pending)
		q.outLimit = outputs
	}
}

// delivered returns how many of outputs, the output-bearing chunks
// queued so far, reach the consumer.
func (q *chunkQueue) delivered(outputs int) int {
	if q.isCut {
		return min(q.outLimit, outputs)
	}
	return outputs
}

// restartOnly reports whether a chunk that reaches the consumer carries a
// tool call, audio or a refusal.
func (q *chunkQueue) restartOnly() bool { return q.noCont }
