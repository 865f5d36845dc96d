package tokenpace

import (
	"context"
	"errors"
	"time"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// Cancelling the background responses a Router leaves.
//
// A Responses request in background mode (background true, store not
// false) goes on at its server when its stream is closed, and is billed
// to its end. When the Router itself stops such a try (a hedge that lost,
// a budget breach it fell back or continued from, an output its Probation
// or validator refused), nobody will read the rest of that response: the
// Router then cancels it at its server (POST /responses/{id}/cancel,
// OpenAI's "Background mode" guide) once the try has ended, on a
// goroutine of its own, so that neither the caller's stream nor its
// figures wait for it. A response the Router resumes is not cancelled,
// nor one the caller stops (Close, or its context): background mode means
// that the caller may come back for it. A try stopped before its server
// named its response (no response.created yet) has nothing to cancel.

// cancelWait bounds the request that cancels a response the Router left,
// openai-go's retries included.
const cancelWait = 10 * time.Second

// leaves reports whether tr, a try that has just ended as t, leaves a
// background response running that the Router stopped reading and no
// later try of the call resumes. c.mu is held.
func (c *call) leaves(tr *try, t *Timing) bool {
	return tr.cause != nil && t.ResponseID != "" && codec.Background(c.req) &&
		!errors.Is(tr.cause, ErrStreamClosed) && c.ctx.Err() == nil &&
		!(c.resumed && len(c.out.tries) > 0 && c.out.tries[0] == tr)
}

// cancelLeft cancels the response id that tr left (see leaves) at tr's
// route, without waiting for the answer. A middleware of the caller's that
// panics or blocks there ends with the request (cancelWait): the cancel is
// a courtesy to the server, and its failure changes nothing the caller
// sees. c.mu is held.
func (c *call) cancelLeft(tr *try, id string) {
	client, opts := c.clientFor(tr.rt)
	ctx, stop := context.WithTimeout(context.WithoutCancel(c.ctx), cancelWait)
	go func() {
		defer stop()
		what := "middleware"
		_ = guard(tr.rt.Name, &what, func() { _, _ = client.Responses.Cancel(ctx, id, opts...) })
	}()
}
