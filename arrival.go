package tokenpace

import (
	"io"
	"runtime/debug"
	"time"

	"github.com/tokenpace/tokenpace/internal/wire"
)

// arrivalBody wraps a response body and notes when each read that returned
// data completed. Only the holder of the attempt's reader role reads it
// (one goroutine at a time, handed over under the attempt's lock), so last
// needs no lock: an SSE event arrived when the read that completed it returned,
// which is last at the moment the framer yields the event (a bufio.Scanner
// reads only when its buffer holds no complete line).
type arrivalBody struct {
	io.ReadCloser
	last   time.Time
	reads  int     // reads that returned data
	bytes  int64   // bytes they returned
	before flusher // told before each read; may be nil
}

// Started passes on the bytes the body it stamps was read ahead, if it
// was (see wire.ReadAhead): a 429's body read for the wait it names is
// not read again for it.
func (b *arrivalBody) Started() []byte {
	if a, ok := b.ReadCloser.(wire.Started); ok {
		return a.Started()
	}
	return nil
}

// flusher is told before each read of a response body, which may block.
type flusher interface{ flush() }

// Read reads from the wrapped body and stamps reads that returned data.
func (b *arrivalBody) Read(p []byte) (int, error) {
	if b.before != nil {
		b.before.flush()
	}
	n, err := b.read(p)
	if n > 0 {
		b.last = time.Now()
		b.reads++
		b.bytes += int64(n)
	}
	return n, err
}

// read reads from the wrapped body. A middleware of the caller's may have
// given it, and a stream reads it on goroutines the caller cannot guard:
// a panic in its Read is the read's error (see readKind), as a panic in a
// hook is the call's.
func (b *arrivalBody) read(p []byte) (n int, err error) {
	defer func() {
		if v := recover(); v != nil {
			n, err = 0, &panicError{value: v, stack: debug.Stack()}
		}
	}()
	return b.ReadCloser.Read(p)
}

// Close closes the wrapped body; a panic in its Close, a middleware's
// body's, is its error.
func (b *arrivalBody) Close() (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicError{value: v, stack: debug.Stack()}
		}
	}()
	return b.ReadCloser.Close()
}
