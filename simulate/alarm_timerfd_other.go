//go:build !linux

package simulate

// newPreciseTimer returns a Go timer: timerfd is Linux's.
func newPreciseTimer() (alarm, error) { return newGoTimer(), nil }
