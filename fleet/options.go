package fleet

import "time"

// Defaults of the options.
const (
	// DefaultPrefix starts every Redis key the package writes.
	DefaultPrefix = "tokenpace:"
	// DefaultTimeout bounds each Redis operation.
	DefaultTimeout = time.Second
)

// Option configures a Breaker, Limiter or Store.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	prefix  string
	timeout time.Duration
	onError func(error)
}

func newConfig(opts []Option) config {
	c := config{prefix: DefaultPrefix, timeout: DefaultTimeout}
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	return c
}

// report passes a Redis error to the error handler, if any.
func (c *config) report(err error) {
	if c.onError != nil && err != nil {
		c.onError(err)
	}
}

// WithPrefix starts every Redis key with prefix instead of
// DefaultPrefix, so that several fleets can share one Redis.
func WithPrefix(prefix string) Option {
	return optionFunc(func(c *config) { c.prefix = prefix })
}

// WithTimeout bounds each Redis operation by d instead of DefaultTimeout;
// d <= 0 keeps the default.
func WithTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) {
		if d > 0 {
			c.timeout = d
		}
	})
}

// WithErrorHandler calls f with every error Redis returns. Requests go on
// regardless (see the package documentation: the fleet fails open), so f
// is where an outage becomes visible. f must be safe for concurrent use
// and must not block; nil means no call.
func WithErrorHandler(f func(error)) Option {
	return optionFunc(func(c *config) { c.onError = f })
}
