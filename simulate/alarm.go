package simulate

import "time"

// alarm is what a driver waits on for its next event: a Go timer by
// default, or a preciseTimer (WithPreciseTimer). Only the driver's goroutine
// calls reset and stop; close follows the last of them.
type alarm interface {
	// c delivers a value when the alarm goes off.
	c() <-chan time.Time
	// reset sets the alarm to go off after d, replacing any setting.
	reset(d time.Duration)
	// stop disarms the alarm.
	stop()
	// close releases the alarm's resources.
	close()
	// gap is the least time the driver leaves between two wake-ups, so
	// that events due close together are sent together; zero means none.
	gap() time.Duration
}

// goTimer is the default alarm, a time.Timer: virtual under
// testing/synctest, and up to about a millisecond late in an idle process,
// since the runtime's network poller sleeps in whole milliseconds.
type goTimer struct{ t *time.Timer }

func newGoTimer() goTimer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return goTimer{t}
}

func (g goTimer) c() <-chan time.Time   { return g.t.C }
func (g goTimer) reset(d time.Duration) { g.t.Reset(d) }
func (g goTimer) stop()                 { g.t.Stop() }
func (g goTimer) close()                { g.t.Stop() }
func (g goTimer) gap() time.Duration    { return 0 }
