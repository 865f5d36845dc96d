package tokenpace

import "time"

// reached is a milestone and when the chunk that completed it arrived.
type reached struct {
	name string
	at   time.Time
}

// reachedAt records a milestone in t at the arrival time of the chunk that
// reached it.
func reachedAt(t *Timing, name string, at time.Time) {
	if t.Milestones == nil {
		t.Milestones = make(map[string]time.Time, 2)
	}
	t.Milestones[name] = at
}
