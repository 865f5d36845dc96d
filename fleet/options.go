package fleet

import "time"

// Defaults of the options.
const (
	// DefaultPrefix starts every Redis key the package writes.
	DefaultPrefix = "tokenpace:"
	// DefaultTimeout bounds each Redis operation: dial, send and reply,
	// retries included. It is short because admission waits for it: a
	// Redis that does not answer in time counts as down (see
	// WithRedisBackoff).
	DefaultTimeout = 10 * time.Millisecond
	// DefaultRedisBackoff is how long Breakers and Limiters leave Redis
	// alone after it failed, deciding locally meanwhile.
	DefaultRedisBackoff = time.Second
	// DefaultStateMaxAge is how long a Breaker decides from the shared
	// state it last read, without reading it again.
	DefaultStateMaxAge = 100 * time.Millisecond
)

// Option configures a Breaker, Limiter or Store.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	prefix  string
	timeout time.Duration
	backoff time.Duration
	maxAge  time.Duration // < 0: read the shared state at every Allow
	onError func(error)
	breaker *Breaker // of a Limiter: the Breaker whose state its reservations read
}

func newConfig(opts []Option) config {
	c := config{prefix: DefaultPrefix, timeout: DefaultTimeout, backoff: DefaultRedisBackoff, maxAge: DefaultStateMaxAge}
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
// DefaultPrefix, so that several fleets can share one Redis. The empty
// prefix is a prefix like another: keys then start with their kind
// ("breaker:", "limit:").
func WithPrefix(prefix string) Option {
	return optionFunc(func(c *config) { c.prefix = prefix })
}

// WithTimeout bounds each Redis operation by d instead of DefaultTimeout;
// d <= 0 keeps the default. The bound covers whatever the client does
// within the operation (dial, pool wait, retries), whatever its own
// options say.
func WithTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) {
		if d > 0 {
			c.timeout = d
		}
	})
}

// WithRedisBackoff sets how long a Breaker or Limiter leaves Redis alone
// after an operation on it failed, instead of DefaultRedisBackoff; d <= 0
// keeps the default. Meanwhile requests are decided locally, by a
// process-local breaker and limiter with the same settings; after d the
// next request tries Redis again, and the fleet's shared state applies
// again once Redis answers. Ignored by NewStore.
func WithRedisBackoff(d time.Duration) Option {
	return optionFunc(func(c *config) {
		if d > 0 {
			c.backoff = d
		}
	})
}

// WithStateMaxAge sets how long a Breaker's Allow decides from the shared
// state it last read (at an Allow, at a reservation of a Limiter made
// WithBreaker, or when outcomes were recorded), instead of
// DefaultStateMaxAge. The zero value keeps the default; d < 0 reads the
// shared state at every Allow. A state that expires (an open breaker
// whose timeout passes) is read again at once, whatever d. Ignored by
// NewLimiter and NewStore.
func WithStateMaxAge(d time.Duration) Option {
	return optionFunc(func(c *config) {
		if d != 0 {
			c.maxAge = d
		}
	})
}

// WithBreaker makes a Limiter's reservations read b's shared state in the
// same Redis round trip, so that a Route with both costs one round trip
// per admission: b's next Allow decides from that state (see
// WithStateMaxAge). b and the Limiter also share their view of whether
// Redis is up. In a Redis Cluster, give both the same name, so that
// their keys share a hash slot. Nil means none; ignored by NewBreaker
// and NewStore.
func WithBreaker(b *Breaker) Option {
	return optionFunc(func(c *config) { c.breaker = b })
}

// WithErrorHandler calls f with every error Redis returns. Requests go on
// regardless (see the package documentation: the fleet fails over to
// local decisions), so f is where an outage becomes visible. f must be
// safe for concurrent use and must not block; nil means no call.
func WithErrorHandler(f func(error)) Option {
	return optionFunc(func(c *config) { c.onError = f })
}
