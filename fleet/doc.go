// Package fleet shares a tokenpace.Router's circuit breakers and rate
// limits among the replicas of a service through Redis, so that a fleet
// of processes trips, recovers and spends its provider quota as one.
//
// A Breaker is gobreaker's DistributedCircuitBreaker on a Redis Store: a
// failure seen by any replica counts towards opening it, and once open it
// skips its route everywhere until a probe succeeds. A Limiter holds the
// requests per second and tokens per minute of a tokenpace.Limit for the
// whole fleet, with reservations that say how long a request would wait,
// so a Router's budget-aware admission moves on to the next route when
// the fleet's queue is too long for the TTFT budget. Set them as a
// Route's Breaker and Limiter; every replica must use the same names and
// settings on the same Redis.
//
// The fleet fails open: when Redis cannot be reached, requests pass as if
// there were no breaker and no limit, and the errors go to the handler
// given with WithErrorHandler. Losing the provider's capacity because the
// coordination store is down would turn a Redis outage into an LLM
// outage; the provider's own limits (429) and the Router's fallback still
// apply.
//
// A request costs Redis round trips while it is admitted: one for the
// breaker's Allow, one for a reservation; recording the outcome when the
// request ends takes six more, under the Store's lock (none for an
// outcome tokenpace.BreakerIgnores). Keep Redis close to the service.
//
// The package lives in its own module, so that the tokenpace module does
// not depend on a Redis client.
package fleet
