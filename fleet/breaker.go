package fleet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
)

// ErrClosed is reported (to WithErrorHandler) for an outcome that ends
// after its Breaker was closed: it is not recorded.
var ErrClosed = errors.New("fleet: breaker closed")

// Breaker is a circuit breaker shared by every process that makes one
// with the same name on the same Redis. Set it as a tokenpace.Route's
// Breaker; failures seen by any replica count towards opening it, and
// once open it skips the route in every replica.
//
// Its state machine is gobreaker's, run by Lua scripts inside Redis, so
// that each update is atomic and the counts of all replicas add up. Allow
// decides from the shared state as last read by this process, if that is
// recent (WithStateMaxAge), and reads it in one round trip otherwise; a
// Limiter made WithBreaker reads it with each reservation (made
// WithLease, with each lease), so that a Route with both costs at most
// one round trip per admission. A state changed by another replica is
// thus seen at the first Allow once the state last read is
// WithStateMaxAge old, never later.
//
// Outcomes are recorded off the caller's path: done queues them and
// returns, and a goroutine, alive only while there are outcomes to
// record, records them in batches, in order, one round trip per batch.
// Outcomes of requests allowed before the state last changed are
// dropped, as gobreaker drops them. While the breaker is half-open, the
// fleet lets HalfOpenRequests probes through, as gobreaker does in one
// process: each Allow then takes a probe's place in one round trip, and
// once every place is taken Allow returns gobreaker.ErrTooManyRequests,
// in every replica, until the probes decide (without a round trip while
// the state read is recent: a place given back elsewhere is seen within
// WithStateMaxAge). The first failure reopens it, HalfOpenRequests
// successes close it; a probe whose outcome the breaker leaves out (the
// caller gave up, the request was not sent) gives its place back, and
// the places of probes not heard of within the breaker's Timeout (a
// replica that ended mid-request) come back then.
//
// When Redis fails, the Breaker leaves it alone for a back-off window
// (WithRedisBackoff) and decides meanwhile with a process-local breaker
// of the same settings, at no cost per call; the error goes to
// WithErrorHandler. The local breaker starts from the shared state this
// process read last, so that a route the fleet saw failing stays
// skipped: open, it stays open until that state's timeout ends and then
// lets HalfOpenRequests probes through (half-open, by gobreaker's rules);
// half-open, it is half-open; closed, it is closed, its counts from
// zero. It decides alone from there, tripping on this process's own
// failures, until Redis answers again. After the window the next request
// tries Redis again, and once it answers the shared state applies again;
// the next time Redis fails, the local breaker starts again from the
// state read last. A shared state that disappeared (a Redis restart
// without persistence) is recreated, closed, and the outcomes being
// recorded count towards it.
//
// Close records the outcomes still queued. A Breaker is safe for
// concurrent use.
type Breaker struct {
	rdb  redis.UniversalClient
	cfg  config
	name string
	key  string
	gate *redisGate

	args      []any // interval and timeout, in microseconds
	maxReq    int64
	threshold int64                                       // consecutive failures that trip; 0 when trip decides
	trip      func(gobreaker.Counts) bool                 // when ReadyToTrip is set; a panic is false
	onChange  func(name string, from, to gobreaker.State) // nil for none; a panic is dropped
	excluded  func(error) bool                            // outcomes counted neither way
	local     *localBreaker
	queue     batcher[outcomes]

	mu         sync.Mutex
	cached     sharedState   // the last state read
	version    uint64        // counts the states cached, for local to start from the last
	fresh      time.Time     // cached decides Allow until then
	ahead      time.Time     // from then, Allow has cached read again in the background
	refreshing chan struct{} // closed when the background read ends; nil when none runs
	closed     bool
}

var _ tokenpace.Breaker = (*Breaker)(nil)

// NewBreaker returns the shared breaker name on rdb, configured as a
// Router configures its own from s (thresholds, timeout, half-open
// probes, interval). Every replica must give the same name and
// settings. It does not contact Redis; the shared state is created on
// first use. It fails when s.Disabled is set.
//
// s.OnStateChange is called with name in the process that makes a
// change of the shared state (the one whose update, or whose read of an
// expired state, moved it on), once per change; and, while Redis is down,
// in each process for every change of its local breaker, synchronously
// and with the local breaker's lock held, as gobreaker calls it (so it
// must not call the Breaker). The local breaker's start from the shared
// state (see Breaker) is no change and is not reported: a process that
// saw the shared state open hears of no change when Redis goes, and of
// open → half-open when the local breaker's open state ends.
func NewBreaker(rdb redis.UniversalClient, name string, s tokenpace.BreakerSettings, opts ...Option) (*Breaker, error) {
	if rdb == nil {
		return nil, errors.New("fleet: NewBreaker needs a Redis client")
	}
	if name == "" {
		return nil, errors.New("fleet: NewBreaker needs a name")
	}
	if s.Disabled {
		return nil, errors.New("fleet: BreakerSettings.Disabled: leave Route.Breaker nil instead")
	}
	cfg := newConfig(opts)
	d := s.Gobreaker(name)
	b := &Breaker{
		rdb:      rdb,
		cfg:      cfg,
		name:     name,
		key:      cfg.prefix + "breaker:{" + name + "}",
		gate:     &redisGate{backoff: cfg.backoff},
		args:     []any{d.Interval.Microseconds(), d.Timeout.Microseconds()},
		maxReq:   int64(d.MaxRequests),
		onChange: d.OnStateChange,
		local:    newLocalBreaker(d),
		excluded: d.IsExcluded,
	}
	if s.ReadyToTrip == nil {
		b.threshold = int64(cmp.Or(s.Failures, defaultFailures))
	} else {
		// The caller's, run on the batcher's and the refill's
		// goroutines, where a panic would end the program: d's
		// recovers, as a Router's own breaker does.
		b.trip = d.ReadyToTrip
	}
	b.queue = batcher[outcomes]{send: b.record, report: b.cfg.report}
	return b, nil
}

// defaultFailures is tokenpace.BreakerSettings' default Failures: the
// consecutive failures after which a Router's own breaker trips.
const defaultFailures = 5

// Allow implements tokenpace.Breaker: it returns gobreaker.ErrOpenState
// while the shared breaker is open, and gobreaker.ErrTooManyRequests
// while it is half-open with the fleet's HalfOpenRequests probes under
// way. While Redis is down, the local
// breaker decides (see Breaker), with gobreaker's errors: ErrOpenState
// until the open state last read ends, then ErrTooManyRequests for the
// requests beyond the HalfOpenRequests probes of the half-open state.
func (b *Breaker) Allow() (done func(err error), err error) {
	now := time.Now()
	s, ok := b.recent(now)
	if !ok {
		if s, ok = b.read(now); !ok {
			return b.fallback().allow(now)
		}
	}
	switch s.state {
	case gobreaker.StateOpen:
		return nil, gobreaker.ErrOpenState
	case gobreaker.StateHalfOpen:
		return b.probe(now, s)
	}
	gen := s.gen
	return func(err error) { b.done(gen, false, err) }, nil
}

// probe lets a request through a half-open state s, read at now, if it
// takes a probe's place in Redis. A state with every place taken
// refuses it without a round trip.
func (b *Breaker) probe(now time.Time, s sharedState) (done func(err error), err error) {
	if s.probes >= b.maxReq {
		return nil, gobreaker.ErrTooManyRequests
	}
	if !b.gate.enter(now) {
		return b.fallback().allow(now)
	}
	s, err = b.run(probeBreaker, b.cfg.report, b.args[0], b.args[1], b.maxReq)
	if err != nil {
		return b.fallback().allow(now)
	}
	taken := len(s.extra) == 1 && s.extra[0] == 1
	switch {
	case s.state == gobreaker.StateOpen:
		return nil, gobreaker.ErrOpenState
	case s.state == gobreaker.StateHalfOpen && !taken:
		return nil, gobreaker.ErrTooManyRequests
	}
	gen := s.gen
	return func(err error) { b.done(gen, taken, err) }, nil
}

// recent returns the cached state if it still decides at now: it is
// recent, and Redis has not failed since. Once it is half WithStateMaxAge
// old, it starts reading the state again in the background, so that
// callers rarely wait for Redis themselves.
func (b *Breaker) recent(now time.Time) (sharedState, bool) {
	b.mu.Lock()
	s, ok := b.cached, now.Before(b.fresh)
	var done chan struct{}
	if ok && !now.Before(b.ahead) && b.refreshing == nil && !b.closed {
		done = make(chan struct{})
		b.refreshing = done
	}
	b.mu.Unlock()
	if done != nil {
		go b.readAhead(done)
	}
	return s, ok && b.gate.up()
}

// readAhead reads the state and closes done, and then reports an error,
// so that the error handler may call Close (which waits for done).
func (b *Breaker) readAhead(done chan struct{}) {
	var errs []error
	b.readReporting(time.Now(), func(err error) { errs = append(errs, err) })
	b.mu.Lock()
	b.refreshing = nil
	b.mu.Unlock()
	close(done)
	for _, err := range errs {
		b.cfg.report(err)
	}
}

// read reads the shared state in one round trip; false when Redis is
// down or failed.
func (b *Breaker) read(now time.Time) (sharedState, bool) {
	return b.readReporting(now, b.cfg.report)
}

// readReporting is read passing its error to report.
func (b *Breaker) readReporting(now time.Time, report func(error)) (sharedState, bool) {
	if !b.gate.enter(now) {
		return sharedState{}, false
	}
	s, err := b.run(readBreaker, report, b.args...)
	if err != nil {
		return sharedState{}, false
	}
	return s, true
}

// run runs a breaker script, passing its outcome to the gate, the state
// it returns to update and its error to report. The caller has entered
// the gate.
func (b *Breaker) run(script *redis.Script, report func(error), args ...any) (sharedState, error) {
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.timeout)
	defer cancel()
	v, err := script.Run(ctx, b.rdb, []string{b.key}, args...).Slice()
	at := time.Now()
	var s sharedState
	if err == nil {
		s, err = parseState(v, at)
	}
	b.gate.leave(at, err == nil)
	if err != nil {
		report(fmt.Errorf("fleet: breaker %s: %w", b.name, explain(err)))
		return sharedState{}, err
	}
	b.update(s, at)
	return s, nil
}

// update caches s, read at local time at, unless a later generation is
// cached already, and reports the state changes it made.
func (b *Breaker) update(s sharedState, at time.Time) {
	b.mu.Lock()
	if s.gen >= b.cached.gen {
		b.cached, b.fresh = s, time.Time{}
		b.version++
		if b.cfg.maxAge > 0 {
			b.fresh, b.ahead = at.Add(b.cfg.maxAge), at.Add(b.cfg.maxAge/2)
			if !s.expiry.IsZero() && s.expiry.Before(b.fresh) {
				b.fresh = s.expiry
			}
		}
	}
	b.mu.Unlock()
	if b.onChange != nil {
		for i := 1; i < len(s.visited); i++ {
			b.onChange(b.name, s.visited[i-1], s.visited[i])
		}
	}
}

// done queues the outcome of a request allowed in generation gen, a
// half-open state's probe if probe.
func (b *Breaker) done(gen int64, probe bool, outcome error) {
	fold := foldOutcome(gen, outcome != nil)
	if outcome != nil && b.excluded(outcome) {
		if !probe {
			return // counted neither way: Redis need not hear of it
		}
		fold = foldFreed(gen) // counted neither way, its place given back
	}
	if !b.queue.add(fold) {
		b.cfg.report(fmt.Errorf("fleet: breaker %s: outcome not recorded: %w", b.name, ErrClosed))
	}
}

// record records a batch of outcomes in one round trip, or on the local
// breaker while Redis is down, and passes its errors to report. It runs
// in the queue's goroutine, or in a caller of flush.
func (b *Breaker) record(o outcomes, report func(error)) {
	if o.dropped > 0 {
		report(fmt.Errorf("fleet: breaker %s: %d outcomes not recorded: more than %d runs waited for Redis", b.name, o.dropped, maxOutcomeRuns))
	}
	runs := o.runs
	if len(runs) == 0 && len(o.freed) == 0 {
		return
	}
	// While Redis is down, the probes' places it holds come back with
	// the Timeout (see breakerLua): the local breaker took none.
	if !b.gate.enter(time.Now()) {
		b.recordLocally(runs)
		return
	}
	args := make([]any, 0, 5+2*len(o.freed)+2*len(runs))
	args = append(args, b.args...)
	args = append(args, b.maxReq, b.threshold, len(o.freed))
	for _, r := range o.freed {
		args = append(args, r.gen, r.n)
	}
	for _, r := range runs {
		args = append(args, r.gen, r.n)
	}
	s, err := b.run(recordBreaker, report, args...)
	if err != nil {
		b.recordLocally(runs)
		return
	}
	if b.trip == nil {
		return
	}
	// Decide each run of failures with ReadyToTrip, as gobreaker does
	// after each failure; the first that trips opens the state, if no
	// other replica changed it meanwhile.
	for _, r := range s.failureRuns() {
		c := r.counts
		for range r.n {
			c.Requests++
			c.TotalFailures++
			c.ConsecutiveFailures++
			c.ConsecutiveSuccesses = 0
			if b.trip(c) {
				if b.gate.enter(time.Now()) {
					b.run(tripBreaker, report, append(b.args[:2:2], r.gen)...)
				}
				return
			}
		}
	}
}

// maxLocalReplay bounds the outcomes of one run replayed on the local
// breaker: more of the same say nothing new to its consecutive counts.
const maxLocalReplay = 1024

// recordLocally replays outcomes that Redis did not take on the local
// breaker.
func (b *Breaker) recordLocally(runs []outcomeRun) {
	local := b.fallback()
	for _, r := range runs {
		var outcome error
		if r.n < 0 {
			outcome = errFailure
		}
		for range min(abs(r.n), maxLocalReplay) {
			done, err := local.allow(time.Now())
			if err != nil {
				break
			}
			done(outcome)
		}
	}
}

// errFailure stands for a failure replayed on the local breaker.
var errFailure = errors.New("fleet: request failed")

// State implements tokenpace.Breaker: the shared state, after this
// process's queued outcomes are recorded; the local breaker's while Redis
// is down (which starts from the shared state read last).
func (b *Breaker) State() gobreaker.State {
	return b.shared().state
}

// Counts returns the shared breaker's counts (of its current generation),
// after this process's queued outcomes are recorded; the local
// breaker's while Redis is down.
func (b *Breaker) Counts() gobreaker.Counts {
	return b.shared().counts
}

// shared flushes the queue and reads the state, or the local breaker's.
func (b *Breaker) shared() sharedState {
	b.queue.flush()
	if s, ok := b.read(time.Now()); ok {
		return s
	}
	local := b.fallback()
	return sharedState{state: local.state(time.Now()), counts: local.counts()}
}

// fallback returns the local breaker, started from the shared state last
// read unless it was already.
func (b *Breaker) fallback() *localBreaker {
	b.mu.Lock()
	s, v := b.cached, b.version
	b.mu.Unlock()
	b.local.start(v, s)
	return b.local
}

// Flush records the outcomes queued so far, in Redis or, while it is
// down, on the local breaker, and returns when they are.
func (b *Breaker) Flush() { b.queue.flush() }

// Close records the outcomes still queued and waits for that to end,
// and for a read of the state under way. Outcomes of requests that end
// later are not recorded (they are reported as ErrClosed); Allow keeps
// working, reading the state when it must only. It returns nil.
func (b *Breaker) Close() error {
	b.queue.close()
	b.mu.Lock()
	b.closed = true
	done := b.refreshing
	b.mu.Unlock()
	if done != nil {
		<-done
	}
	return nil
}
