//go:build race

package plan_test

// raceEnabled: the race detector is on.
const raceEnabled = true
