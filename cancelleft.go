package tokenpace

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/openai/openai-go/v3/option"

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
// sees. A 409 is not sent again (see settled). c.mu is held.
func (c *call) cancelLeft(tr *try, id string) {
	client, opts := c.clientFor(tr.rt)
	opts = append(slices.Clip(opts), option.WithMiddleware(settled))
	ctx, stop := context.WithTimeout(context.WithoutCancel(c.ctx), cancelWait)
	go func() {
		defer stop()
		what := "middleware"
		_ = guard(tr.rt.Name, &what, func() { _, _ = client.Responses.Cancel(ctx, id, opts...) })
	}()
}

// settled marks a 409 answer to a cancel not to be sent again
// (X-Should-Retry: false): the server says the response's state forbids
// it, as Llama Stack (OGX) does for a response already completed, failed
// or incomplete (cancel_openai_response, ConflictError; ogx-ai/ogx#5268),
// and that state will not change. openai-go sends every 409 again, twice
// by default.
func settled(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res.StatusCode != http.StatusConflict {
		return res, err
	}
	res.Header = res.Header.Clone()
	if res.Header == nil {
		res.Header = http.Header{}
	}
	res.Header.Set("X-Should-Retry", "false")
	return res, nil
}
