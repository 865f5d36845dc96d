// Package fleet shares a tokenpace.Router's circuit breakers and rate
// limits among the replicas of a service through Redis, so that a fleet
// of processes trips, recovers and spends its provider quota as one.
//
// A Breaker is gobreaker's state machine run by Lua scripts inside Redis:
// a failure seen by any replica counts towards opening it, and once open
// it skips its route everywhere until a probe succeeds. A Limiter holds
// the requests per second and tokens per minute of a tokenpace.Limit for
// the whole fleet, with reservations that say how long a request would
// wait, so a Router's budget-aware admission moves on to the next route
// when the fleet's queue is too long for the TTFT budget. Set them as a
// Route's Breaker and Limiter; every replica must use the same names and
// settings on the same Redis.
//
// # Cost
//
// Admitting a request costs one Redis round trip: the Limiter's
// reservation, made WithBreaker, also reads the Breaker's shared state,
// from which the Breaker's next Allow decides (a Breaker alone reads it
// at Allow when what it read last is older than WithStateMaxAge).
// Recording the outcome when the request ends costs the caller nothing:
// outcomes are queued and recorded in the background, in batches, one
// round trip per batch (none for an outcome the breaker leaves out of its counts).
// Every update is one atomic script, so the counts of all replicas add
// up. Keep Redis close to the service.
//
// A Limiter made WithLease costs most admissions no round trip at all:
// it takes capacity for several requests with one reservation and
// reserves from it in the process, topping it up in the background, for
// an over-admission bounded by one lease per replica (see WithLease).
// The Breaker then reads the shared state with each top-up, or every
// WithStateMaxAge: a state changed by one replica is seen by the others
// within WithStateMaxAge of their last read.
//
// # Redis down
//
// Losing the provider's capacity because the coordination store is down
// would turn a Redis outage into an LLM outage, and waiting for Redis
// would spend the requests' TTFT budget. So each Redis operation is
// bounded by a short timeout (WithTimeout, covering dial, pool wait and
// retries whatever the client's options), and after one fails the
// Breaker and Limiter leave Redis alone for a back-off window
// (WithRedisBackoff): meanwhile they decide locally, with a
// process-local breaker and limiter of the same settings, at no cost
// per call. The local breaker starts from the shared state read last, so
// a route the fleet saw failing stays skipped until its open timeout
// ends; the local limiter keeps to the limit for its replica alone. After
// the window the next request tries Redis again; once it answers, the
// fleet's shared state applies again. Errors go to the
// handler given with WithErrorHandler. A client made with
// redis.Options{ContextTimeoutEnabled: true, MaxRetries: -1} suits the
// package: the timeout then bounds reads and writes too (without
// ContextTimeoutEnabled, a Redis that hangs holds a call for the
// client's ReadTimeout), and the client's own retries cannot help within
// the timeout.
//
// Close a Breaker to record the outcomes it still has queued.
//
// The package lives in its own module, so that the tokenpace module does
// not depend on a Redis client.
package fleet
