package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
)

// Breaker is a circuit breaker shared by every process that makes one
// with the same name on the same Redis: a
// gobreaker.DistributedCircuitBreaker whose state lives in a Store. Set it
// as a tokenpace.Route's Breaker; failures seen by any replica count
// towards opening it, and once open it skips the route in every replica.
//
// Allow reads the shared state: open skips the route; closed and
// half-open let the request through. The request's outcome is recorded
// when it ends, under the Store's lock, which covers the whole
// read-modify-write of the shared state, so outcomes recorded at once by
// several replicas all count. While the breaker is half-open,
// every replica lets requests through (the probe limit,
// HalfOpenRequests, counts outcomes, not requests in flight): the first
// failure reopens it, HalfOpenRequests successes close it.
//
// When Redis cannot be reached the breaker fails open: Allow lets every
// request through, outcomes are not recorded, State reports closed, and
// the error goes to WithErrorHandler. A shared state that disappeared (a
// Redis restart without persistence) is recreated, closed.
//
// A Breaker is safe for concurrent use.
type Breaker struct {
	store *Store
	st    gobreaker.Settings
	key   string // of the shared state in the Store

	// op serialises this process's use of the distributed breaker, whose
	// Store lock is reentrant: see locked.
	op  sync.Mutex
	mu  sync.Mutex
	dcb *gobreaker.DistributedCircuitBreaker[struct{}] // nil until the shared state is reached
}

var _ tokenpace.Breaker = (*Breaker)(nil)

// NewBreaker returns the shared breaker name on rdb, configured as a
// Router configures its own from s (thresholds, timeout, half-open
// probes, interval; s.OnStateChange is called with name in the process
// that makes the change). Every replica must give the same name and
// settings. It does not contact Redis; the shared state is created on
// first use. It fails when s.Disabled is set.
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
	failures := s.Failures
	if failures == 0 {
		failures = tokenpace.DefaultBreakerFailures
	}
	trip := s.ReadyToTrip
	if trip == nil {
		trip = func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= failures }
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = tokenpace.DefaultBreakerTimeout
	}
	st := gobreaker.Settings{
		Name:        name,
		MaxRequests: s.HalfOpenRequests,
		Interval:    s.Interval,
		Timeout:     timeout,
		ReadyToTrip: trip,
		IsExcluded:  tokenpace.BreakerIgnores,
	}
	if f := s.OnStateChange; f != nil {
		st.OnStateChange = func(name string, from, to gobreaker.State) { f(name, from.String(), to.String()) }
	}
	store := NewStore(rdb, opts...)
	store.reentrant = true
	return &Breaker{store: store, st: st, key: "gobreaker:state:" + name}, nil
}

// shared returns the distributed breaker, creating the shared state if
// needed.
func (b *Breaker) shared() (*gobreaker.DistributedCircuitBreaker[struct{}], error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dcb == nil {
		// Reach Redis once first: gobreaker retries a failed lock for
		// seconds, which is for contention, not for an outage.
		if _, err := b.store.GetData(b.key); err != nil {
			return nil, err
		}
		dcb, err := gobreaker.NewDistributedCircuitBreaker[struct{}](b.store, b.st)
		if err != nil {
			return nil, err
		}
		b.dcb = dcb
	}
	return b.dcb, nil
}

// fail reports a Redis error; a missing shared state is recreated next
// time.
func (b *Breaker) fail(err error) {
	if errors.Is(err, gobreaker.ErrNoSharedState) {
		b.reset()
		err = errors.New("fleet: breaker " + b.st.Name + ": shared state unreachable or missing")
	}
	b.store.cfg.report(err)
}

// Allow implements tokenpace.Breaker: it returns gobreaker.ErrOpenState
// while the shared breaker is open. It reads the shared state in one
// Redis round trip, without the lock; the open state's expiry was set by
// the clock of the replica that opened it.
func (b *Breaker) Allow() (done func(err error), err error) {
	data, err := b.store.GetData(b.key)
	if err != nil {
		b.fail(err)
		return b.record, nil
	}
	if data == nil {
		return b.record, nil // made on the first outcome
	}
	var s gobreaker.SharedState
	if err := json.Unmarshal(data, &s); err != nil {
		b.fail(fmt.Errorf("fleet: breaker %s: shared state: %w", b.st.Name, err))
		return b.record, nil
	}
	if s.State == gobreaker.StateOpen && time.Now().Before(s.Expiry) {
		return nil, gobreaker.ErrOpenState
	}
	return b.record, nil
}

// record adds a request's outcome to the shared counts.
func (b *Breaker) record(outcome error) {
	if outcome != nil && tokenpace.BreakerIgnores(outcome) {
		// Not counted: no need to reach Redis (Allow limits no probes,
		// so the request need not be accounted for either).
		return
	}
	if outcome != nil {
		outcome = &outcomeError{outcome}
	}
	err := b.execute(outcome)
	if errors.Is(err, gobreaker.ErrNoSharedState) {
		// The state was lost (Redis restarted): make it anew, once.
		b.reset()
		err = b.execute(outcome)
	}
	var oe *outcomeError
	switch {
	case err == nil, errors.As(err, &oe), errors.Is(err, gobreaker.ErrOpenState), errors.Is(err, gobreaker.ErrTooManyRequests):
		// Recorded, or dropped because the breaker opened meanwhile or
		// already has its half-open outcomes.
	default:
		b.fail(err)
	}
}

// execute records outcome on the shared breaker.
func (b *Breaker) execute(outcome error) error {
	return b.locked(func(dcb *gobreaker.DistributedCircuitBreaker[struct{}]) error {
		_, err := dcb.Execute(func() (struct{}, error) { return struct{}{}, outcome })
		return err
	})
}

// locked runs f on the distributed breaker under the Store's lock.
// gobreaker reads the shared state before it takes the lock, so two
// replicas updating at once would each write back what it read, and one
// update would be lost; taking the lock first, reentrant for f's own
// Lock, makes the whole read-modify-write exclusive across the fleet.
func (b *Breaker) locked(f func(*gobreaker.DistributedCircuitBreaker[struct{}]) error) error {
	b.op.Lock()
	defer b.op.Unlock()
	dcb, err := b.shared()
	if err != nil {
		return err
	}
	mutex := "gobreaker:mutex:" + b.st.Name
	if err := b.store.acquire(mutex); err != nil {
		return err
	}
	err = f(dcb)
	// f released the lock already; this is for an f that failed early.
	if e := b.store.Unlock(mutex); e != nil && !errors.Is(e, ErrNotLocked) && err == nil {
		err = e
	}
	return err
}

// reset drops the distributed breaker, so that the next use makes the
// shared state anew.
func (b *Breaker) reset() {
	b.mu.Lock()
	b.dcb = nil
	b.mu.Unlock()
}

// state returns the shared state, reporting errors.
func (b *Breaker) state() (gobreaker.State, error) {
	var s gobreaker.State
	err := b.locked(func(dcb *gobreaker.DistributedCircuitBreaker[struct{}]) (err error) {
		s, err = dcb.State()
		return err
	})
	if err != nil {
		b.fail(err)
		return gobreaker.StateClosed, err
	}
	return s, nil
}

// State implements tokenpace.Breaker: the shared state, or
// gobreaker.StateClosed when Redis cannot be reached.
func (b *Breaker) State() gobreaker.State {
	s, _ := b.state()
	return s
}

// outcomeError carries a request's failure through Execute, so that it is
// told apart from the Store's errors.
type outcomeError struct{ err error }

func (e *outcomeError) Error() string { return e.err.Error() }
func (e *outcomeError) Unwrap() error { return e.err }
