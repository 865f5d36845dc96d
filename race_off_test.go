//go:build !race

package tokenpace

// raceEnabled: the race detector is on; see race_on_test.go.
const raceEnabled = false
