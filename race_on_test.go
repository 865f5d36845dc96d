//go:build race

package tokenpace

// raceEnabled: the race detector is on; sync.Pool then drops items at
// random, so allocation counts that rely on a pool are not exact.
const raceEnabled = true
