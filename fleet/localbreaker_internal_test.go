package fleet

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
)

var errProbe = errors.New("probe failed")

// changeLog records a localBreaker's state changes.
type changeLog []string

func (c *changeLog) settings(s tokenpace.BreakerSettings) gobreaker.Settings {
	s.OnStateChange = func(_, from, to string) { *c = append(*c, from+"->"+to) }
	return s.Gobreaker("r")
}

// mustAllow calls l.allow and fails t unless its error is want; it
// returns done.
func mustAllow(t *testing.T, l *localBreaker, want error) func(error) {
	t.Helper()
	done, err := l.allow(time.Now())
	if !errors.Is(err, want) {
		t.Fatalf("allow() in state %v = %v, want %v", l.state(time.Now()), err, want)
	}
	return done
}

func checkState(t *testing.T, l *localBreaker, want gobreaker.State) {
	t.Helper()
	if got := l.state(time.Now()); got != want {
		t.Fatalf("state() = %v, want %v", got, want)
	}
}

func checkChanges(t *testing.T, got changeLog, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("state changes = %v, want %v", got, want)
	}
}

// Started open, the local breaker stays open until the expiry read, then
// follows gobreaker's rules: half-open, a failed probe reopens it for the
// full timeout, a probe that succeeds closes it; its start is no change.
func TestLocalBreakerStartsOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 30 * time.Second
		var changes changeLog
		l := newLocalBreaker(changes.settings(tokenpace.BreakerSettings{Failures: 2, Timeout: timeout}))
		l.start(1, sharedState{state: gobreaker.StateOpen, expiry: time.Now().Add(10 * time.Second)})
		mustAllow(t, l, gobreaker.ErrOpenState)
		checkChanges(t, changes)

		time.Sleep(10*time.Second - time.Nanosecond)
		mustAllow(t, l, gobreaker.ErrOpenState)
		time.Sleep(time.Nanosecond)
		probe := mustAllow(t, l, nil)
		mustAllow(t, l, gobreaker.ErrTooManyRequests)
		probe(errProbe)
		checkState(t, l, gobreaker.StateOpen)
		checkChanges(t, changes, "open->half-open", "half-open->open")

		time.Sleep(timeout - time.Nanosecond)
		mustAllow(t, l, gobreaker.ErrOpenState)
		time.Sleep(time.Nanosecond)
		mustAllow(t, l, nil)(nil)
		checkState(t, l, gobreaker.StateClosed)
		checkChanges(t, changes, "open->half-open", "half-open->open", "open->half-open", "half-open->closed")

		// Closed, gobreaker decides: its second failure opens it.
		mustAllow(t, l, nil)(errProbe)
		mustAllow(t, l, nil)(errProbe)
		mustAllow(t, l, gobreaker.ErrOpenState)
		checkChanges(t, changes, "open->half-open", "half-open->open", "open->half-open", "half-open->closed",
			"closed->open")
	})
}

// Started half-open, the local breaker lets HalfOpenRequests probes
// through at a time, an excluded outcome giving its place back, and
// closes at as many successes.
func TestLocalBreakerStartsHalfOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var changes changeLog
		l := newLocalBreaker(changes.settings(tokenpace.BreakerSettings{HalfOpenRequests: 2}))
		l.start(1, sharedState{state: gobreaker.StateHalfOpen})
		checkState(t, l, gobreaker.StateHalfOpen)
		first := mustAllow(t, l, nil)
		second := mustAllow(t, l, nil)
		mustAllow(t, l, gobreaker.ErrTooManyRequests)
		second(context.Canceled) // excluded: neither success nor failure
		third := mustAllow(t, l, nil)
		first(nil)
		checkState(t, l, gobreaker.StateHalfOpen)
		third(nil)
		checkState(t, l, gobreaker.StateClosed)
		checkChanges(t, changes, "half-open->closed")
	})
}

// A start from a later shared state replaces the local state, without a
// change reported, and outcomes of requests allowed before it are
// dropped; a start from the same or an earlier one changes nothing.
func TestLocalBreakerStartsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var changes changeLog
		l := newLocalBreaker(changes.settings(tokenpace.BreakerSettings{Failures: 1}))
		open := sharedState{state: gobreaker.StateOpen, expiry: time.Now().Add(time.Hour)}
		closed := sharedState{state: gobreaker.StateClosed}
		halfOpen := sharedState{state: gobreaker.StateHalfOpen}

		l.start(2, halfOpen)
		probe := mustAllow(t, l, nil)
		l.start(2, closed)
		l.start(1, closed)
		checkState(t, l, gobreaker.StateHalfOpen)

		l.start(3, open)
		probe(nil) // allowed before the start: dropped
		checkState(t, l, gobreaker.StateOpen)

		l.start(4, closed)
		done := mustAllow(t, l, nil)
		l.start(5, closed)
		done(errProbe) // allowed by the breaker replaced: dropped
		checkState(t, l, gobreaker.StateClosed)
		checkChanges(t, changes)
	})
}

// TestDefaultFailures checks that a shared breaker trips after as many
// consecutive failures as a Router's own does by default.
func TestDefaultFailures(t *testing.T) {
	trip := tokenpace.BreakerSettings{}.Gobreaker("a").ReadyToTrip
	if trip(gobreaker.Counts{ConsecutiveFailures: defaultFailures - 1}) || !trip(gobreaker.Counts{ConsecutiveFailures: defaultFailures}) {
		t.Errorf("a Router's breaker does not trip at exactly %d consecutive failures, the shared breaker's default", defaultFailures)
	}
}
