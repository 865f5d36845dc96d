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
// up. While a Breaker is half-open, a request that may be one of its
// HalfOpenRequests probes costs one more round trip, to take a probe's
// place in the fleet. Keep Redis close to the service.
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
// # Redis deployments
//
// Give the package a client of a standalone Redis or of its primary (a
// redis.Client, or a redis.FailoverClient of a Sentinel deployment), or
// a redis.ClusterClient of a Redis Cluster. Each script reads and
// writes one key (a Breaker's, a Limiter's own, or its Breaker's), named
// with a hash tag, so a Cluster answers no CROSSSLOT; go-redis follows a
// slot that moves (ASK, then MOVED) and the counts move with the key.
// A ClusterClient's first command loads the slot map and Redis's table
// of commands (COMMAND), and its first to each master dials it, which
// can take longer than DefaultTimeout: make them before serving
// (rdb.Ping(ctx), then a Ping to each master with rdb.ForEachMaster), or
// the first requests are decided locally for WithRedisBackoff, and
// reported. The scripts run by their
// hash (EVALSHA); a Redis that forgot them (a restart, SCRIPT FLUSH, the
// node a slot moved to) answers NOSCRIPT without running them, and
// go-redis sends their source (EVAL): each request and outcome is counted
// once.
//
// A Redis that answers but refuses the fleet counts as down (see "Redis
// down"): the error handler hears Redis's reply followed by what to
// change. That is the case of a read-only replica (READONLY: give the
// fleet the primary), of a Redis whose memory is full and that evicts
// nothing (OOM; the fleet's keys are small, and a Limiter's own expire,
// but an allkeys eviction policy may evict a Breaker's state, which is
// then recreated closed), and of a user that lacks a permission.
//
// # Redis permissions
//
// A user limited by an ACL needs these commands on the keys of the
// prefix (tokenpace:* by default, see WithPrefix), and nothing else:
//
//	ACL SETUSER fleet on >password resetkeys ~tokenpace:* resetchannels -@all
//	    +evalsha +eval +time +hmget +hset +pexpireat +pttl +get +set +del
//
// EVALSHA and EVAL run the scripts; TIME, HMGET and HSET are what a
// Breaker's and a Limiter's scripts call, PEXPIREAT and PTTL what a
// Limiter without WithBreaker calls (its key expires once its limit is
// unused); SET, GET and DEL are a Store's. Redis checks a script's
// commands as it runs them, and a script refused halfway has made its
// writes so far: a Limiter's reservation refused at PEXPIREAT is counted
// in Redis and again locally, so grant every command above. A
// ClusterClient needs +cluster|slots besides, to learn the slots, and
// +command (without it go-redis asks for COMMAND again before every
// command, one more round trip each). The connection's own commands
// (HELLO, AUTH) need no grant; go-redis ignores a refused CLIENT SETINFO.
//
// The package lives in its own module, so that the tokenpace module does
// not depend on a Redis client.
package fleet
