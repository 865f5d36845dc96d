package tokenpace

import (
	"context"

	"github.com/tokenpace/tokenpace/internal/milestone"
	"github.com/tokenpace/tokenpace/internal/wire"
)

// An Option configures a Client. Options are applied in order; a nil Option
// is ignored.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// config is what the options set.
type config struct {
	hooks        Hooks
	milestones   []milestone.Predicate
	maxLineBytes int
	name         string
	// closing is shared by the copies of a config: the servers its
	// client found to close every connection after a response.
	closing *wire.ClosingServers
	// extras is shared likewise: the extra content of tool calls its
	// servers sent, given back to them (Gemini 3's thought signatures).
	extras *wire.CallExtras
	// items is shared likewise: who made each Responses reasoning item
	// its servers sent, kept from another deployment (see
	// wire.ReasoningItems).
	items *wire.ReasoningItems
	// refused is shared likewise: the fields servers were found to
	// refuse when the client added them (stream_options, what it gives
	// back).
	refused *wire.RefusedFields
	// infill is shared likewise: the servers that do fill-in-the-middle
	// at /infill only (llama.cpp's).
	infill *wire.InfillServers
	// sglang is shared likewise: what SGLang servers said of their
	// completion template.
	sglang *wire.SGLangServers
	// llamaCppPython is shared likewise: what llama-cpp-python servers
	// said of their fill-in-the-middle.
	llamaCppPython *wire.LlamaCppPythonServers
}

// defaultMaxLineBytes is the longest event-stream line, and the largest
// event, a stream accepts unless WithMaxLineBytes says otherwise:
// openai-go's own bound (its event-stream scanner's buffer), so that
// what bare openai-go reads, the client reads too. The Responses API's
// image generation sends events of several MiB: a partial image, and the
// whole image again in output_item.done and response.completed.
const defaultMaxLineBytes = 32 << 20

func newConfig(opts []Option) config {
	c := config{maxLineBytes: defaultMaxLineBytes, closing: new(wire.ClosingServers), extras: new(wire.CallExtras),
		items: new(wire.ReasoningItems), refused: new(wire.RefusedFields), infill: new(wire.InfillServers), sglang: new(wire.SGLangServers),
		llamaCppPython: new(wire.LlamaCppPythonServers)}
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	return c
}

// WithHooks adds hooks that observe every request of the Client, called
// in order, after those of earlier WithHooks. Hooks carried on a request's
// context (ContextWithHooks) run after them.
func WithHooks(hooks ...Hooks) Option {
	return optionFunc(func(c *config) { c.hooks = composeHooks(append([]Hooks{c.hooks}, hooks...)...) })
}

// WithMilestone records in Timing.Milestones, under name, when reached first
// holds for the accumulated content of the first choice, and reports it to
// Hooks.Milestone. reached runs on the goroutine that reads the response,
// once per content-bearing chunk until it holds, and must be quick. A nil
// reached or empty name is ignored; the built-in names are reserved.
func WithMilestone(name string, reached func(text string) bool) Option {
	return optionFunc(func(c *config) {
		if name == "" || reached == nil || name == MilestoneFirstLine || name == MilestoneFirstSentence {
			return
		}
		c.milestones = append(c.milestones, milestone.Predicate{Name: name, Reached: reached})
	})
}

// WithMaxLineBytes sets the longest line of the event stream a response may
// hold, and the largest event (its data over all its lines); a longer one
// ends the stream with a KindTooLarge StreamError instead of growing a
// buffer without bound. n <= 0 means 32 MiB, the bound of openai-go's own
// event-stream reader.
func WithMaxLineBytes(n int) Option {
	return optionFunc(func(c *config) {
		if n <= 0 {
			n = defaultMaxLineBytes
		}
		c.maxLineBytes = n
	})
}

// WithName names the Client's endpoint in Timing.Target and in errors, so
// metrics can tell several Clients apart. The zero value is "".
func WithName(name string) Option {
	return optionFunc(func(c *config) { c.name = name })
}

type hooksKey struct{}

// ContextWithHooks returns a context carrying hooks, in the manner of
// httptrace.WithClientTrace: requests made with it call them in order
// (after the Client's own hooks, and after hooks already on ctx).
func ContextWithHooks(ctx context.Context, hooks ...Hooks) context.Context {
	h := composeHooks(hooks...)
	if old, ok := ctx.Value(hooksKey{}).(Hooks); ok {
		h = composeHooks(old, h)
	}
	return context.WithValue(ctx, hooksKey{}, h)
}

// hooksFor returns the hooks that observe a request made with ctx.
func (c *config) hooksFor(ctx context.Context) Hooks {
	if h, ok := ctx.Value(hooksKey{}).(Hooks); ok {
		return composeHooks(c.hooks, h)
	}
	return c.hooks
}
