package fleet

import "time"

// Defaults of the options.
const (
	// DefaultPrefix starts every Redis key the package writes.
	DefaultPrefix = "tokenpace:"
	// DefaultTimeout bounds each Redis operation (see WithTimeout). It
	// is short because admission waits for it: a Redis that does not
	// answer in time counts as down (see WithRedisBackoff).
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
	// of a Limiter: requests per lease (0: none) and how long it is held
	leaseN   int
	leaseTTL time.Duration
}

func newConfig(opts []Option) config {
	c := config{prefix: DefaultPrefix, timeout: DefaultTimeout, backoff: DefaultRedisBackoff, maxAge: DefaultStateMaxAge,
		leaseTTL: DefaultLeaseTTL}
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
// d <= 0 keeps the default. The bound is the operation's context
// deadline: it covers the dial, the wait for a pooled connection and the
// retries whatever the client's options say, but go-redis bounds a read
// or a write by it only when the client is made with
// redis.Options{ContextTimeoutEnabled: true}; otherwise a Redis that
// accepts connections but does not answer holds each operation for the
// client's ReadTimeout (5 s by default), not d. Set ContextTimeoutEnabled
// (or ReadTimeout and WriteTimeout no longer than d).
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
// shared state at every Allow. An Allow that finds the state half d old
// starts reading it again in the background, so that under steady
// traffic callers do not wait for that read; a state changed elsewhere
// is seen at the first Allow once the state last read is d old, never
// later. A state that expires (an open breaker whose timeout passes) is
// read again at once, whatever d. Ignored by NewLimiter and NewStore.
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
// Redis is up. The Limiter's counts then live in b's key, whatever the
// Limiter's name, so each script still touches one key (one hash slot
// of a Redis Cluster). Nil means none; ignored by NewBreaker and
// NewStore.
func WithBreaker(b *Breaker) Option {
	return optionFunc(func(c *config) { c.breaker = b })
}

// WithErrorHandler calls f with every error Redis returns. Requests go on
// regardless (see the package documentation: the fleet fails over to
// local decisions), so f is where an outage becomes visible. f must be
// safe for concurrent use and must not block; it is called with no lock
// of the package held, so it may call the Breaker's or Limiter's
// methods, Close included. Nil means no call.
func WithErrorHandler(f func(error)) Option {
	return optionFunc(func(c *config) { c.onError = f })
}

// WithLease makes a Limiter take capacity from Redis ahead of its
// requests, room for n requests at a time, so that most reservations
// cost no round trip: when a reservation finds the limit with room for
// its own cost and the lease's, it takes both in its one round trip, and
// the next reservations take from the lease locally; once it is half
// used, one goroutine tops it up in the background.
// A lease is only taken when the fleet's limit has room for it now, so
// requests that must wait are still reserved one by one, in the fleet's
// order; a lease holds at most n times the cost of the request that took
// it (per limit: requests, tokens), and never more than the limit's burst
// less that cost.
//
// The price is bounded: a replica can admit, in any window, what it
// leased before the window began, so k replicas admit at most the limit
// plus k leases per window; and a lease held but unused keeps its
// capacity from the other replicas until it is used or expires. What is
// unused after ttl (ttl <= 0: DefaultLeaseTTL) since the last lease was
// taken, or at Close, goes back to Redis in the background; so a replica
// that admits fewer than one request per ttl gains nothing from a lease
// (each expires unused: one more round trip per ttl, off the callers'
// path), and one that admits about n per ttl gains most. n <= 0 means
// no lease (the default): every reservation is a round trip and the
// fleet's limit is exact. Reservations from a lease do not read the
// state of the Breaker given WithBreaker (its top-ups do); the Breaker
// reads it as WithStateMaxAge says. Ignored by NewBreaker and NewStore.
func WithLease(n int, ttl time.Duration) Option {
	return optionFunc(func(c *config) {
		c.leaseN = max(n, 0)
		if ttl > 0 {
			c.leaseTTL = ttl
		}
	})
}
