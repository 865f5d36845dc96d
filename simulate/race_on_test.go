//go:build race

package simulate

// raceEnabled: the race detector is on.
const raceEnabled = true
