package tokenpace

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// WithTimingInto returns a request option with which a non-streaming call
// (New, NewCompletion or NewResponse, of a Client or a Router) stores its
// Timing in *dst when it returns, as option.WithResponseInto stores the
// HTTP response: the Timing of a failed call too, its Err set. A
// streaming call ignores it: its Stream has the Timing. Passed to
// openai-go directly, it does nothing.
func WithTimingInto(dst **Timing) option.RequestOption {
	return timingInto{RequestOption: option.WithHeaderDel(timingIntoHeader), dst: dst}
}

// timingIntoHeader is the header that a timingInto deletes: none that a
// request carries, so that the option does nothing where openai-go
// applies it.
const timingIntoHeader = "X-Tokenpace-Timing-Into"

// timingInto is the option of WithTimingInto.
type timingInto struct {
	option.RequestOption
	dst **Timing
}

// timingDst returns opts without their timingInto options, and where the
// last of them stores the Timing (nil without one).
func timingDst(opts []option.RequestOption) ([]option.RequestOption, **Timing) {
	var dst **Timing
	i := slices.IndexFunc(opts, func(o option.RequestOption) bool { _, ok := o.(timingInto); return ok })
	if i < 0 {
		return opts, nil
	}
	rest := slices.Clone(opts[:i])
	for _, o := range opts[i:] {
		if ti, ok := o.(timingInto); ok {
			dst = ti.dst
		} else {
			rest = append(rest, o)
		}
	}
	return rest, dst
}

// fetchWhole makes a Client's non-streaming call of req and returns the
// response as its API sent it (a *R) and its Timing, which has no chunks
// and no milestones: its E2E ends when the last byte of the response
// arrived, and its token counts come from the response's usage. A failed
// call returns the caller's context error unchanged, a KindContentType
// *StreamError for a 2xx answer that is neither JSON nor an event stream
// (see exchange.assemble), a KindErrorEvent one that wraps the error a
// 2xx answer holds in the place of the answer (an "error" member without
// choices, as OpenRouter sends once a model has started; a failed
// response) as an *openai.Error, or a KindRequest one that wraps
// openai-go's error (an *openai.Error for an error status). An answer
// whose server said it stopped it itself (codec.FailedFinish) is
// returned with a KindTruncated one, and one that holds the first of
// several choices asked alone with a KindRequest one (see errNIgnored).
func fetchWhole[R any](ctx context.Context, c *Client, req codec.Request, opts []option.RequestOption) (*R, error) {
	opts, dst := timingDst(opts)
	t := &Timing{Target: c.cfg.name, Model: req.Model(), API: API(req.API()), Start: time.Now(), PromptBytes: req.PromptBytes()}
	x := exchange{whole: req, maxLine: c.cfg.maxLineBytes, closing: c.cfg.closing, extras: c.cfg.extras, declined: c.cfg.refused, infill: c.cfg.infill, sglang: c.cfg.sglang, llamaCppPython: c.cfg.llamaCppPython,
		items: c.cfg.items, maxAdded: codec.AddedMaxTokens(req)}
	var ev codec.Event
	var refused, err error
	what := "middleware"
	if perr := guard(c.cfg.name, &what, func() {
		ev, refused, err = req.Fetch(ctx, &c.oc, append(slices.Clip(opts), option.WithMiddleware(x.middleware())))
	}); perr != nil {
		err = perr
	}
	t.End = time.Now()
	if last := x.lastRead(); !last.IsZero() {
		t.End = last
	}
	x.fill(t, true)
	switch {
	case err != nil && isPanic(err):
	case err != nil:
		res, _ := x.response()
		if kind, detail, ferr := x.wholeFailure(res); kind != 0 && ctxErr(ctx) == nil {
			err = &StreamError{Kind: kind, Target: c.cfg.name, Detail: detail, Err: ferr}
		} else {
			err = x.failure(ctx, c.cfg.name, err)
		}
	case refused != nil:
		kind, detail, rerr := x.wholeRefusal(refused)
		err = &StreamError{Kind: kind, Target: c.cfg.name, Detail: detail, Err: rerr}
	default:
		x.note(&ev)
		t.ResponseModel, t.ResponseID = ev.Chunk.Model, ev.ID()
		if len(ev.Chunk.Choices) > 0 {
			t.FinishReason = ev.Chunk.Choices[0].FinishReason
		}
		t.setUsage(ev.Usage, ev.HasUsage)
		if cut := wholeCut(ev, req.Choices(), c.cfg.name); cut != nil {
			err = cut
		}
	}
	t.Err = err
	if h := c.cfg.hooksFor(ctx); h.Done != nil {
		what = "Done hook"
		if perr := guard(c.cfg.name, &what, func() { h.Done(ctx, t) }); perr != nil && err == nil {
			t.Err, err = perr, perr
		}
	}
	if dst != nil {
		*dst = t
	}
	res, _ := ev.Orig.(*R)
	if err != nil && !isKind(err, KindTruncated) && !errors.Is(err, errNIgnored) {
		return nil, err
	}
	return res, err
}
