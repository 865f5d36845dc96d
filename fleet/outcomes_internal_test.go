package fleet

import "testing"

func TestFoldOutcome(t *testing.T) {
	tests := []struct {
		name        string
		outcomes    []bool // failed
		gens        []int64
		wantRuns    int
		wantDropped int64
	}{
		{"equal outcomes merge", []bool{false, false, false}, []int64{1, 1, 1}, 1, 0},
		{"a change of outcome starts a run", []bool{false, true, true, false}, []int64{1, 1, 1, 1}, 3, 0},
		{"a change of generation starts a run", []bool{false, false}, []int64{1, 2}, 2, 0},
	}
	for _, tt := range tests {
		var o outcomes
		for i, failed := range tt.outcomes {
			foldOutcome(tt.gens[i], failed)(&o)
		}
		if len(o.runs) != tt.wantRuns || o.dropped != tt.wantDropped {
			t.Errorf("%s: runs, dropped = %d, %d, want %d, %d", tt.name, len(o.runs), o.dropped, tt.wantRuns, tt.wantDropped)
		}
	}
}

func TestFoldOutcomeBounded(t *testing.T) {
	var o outcomes
	foldOutcome(1, false)(&o)
	foldOutcome(1, false)(&o) // the oldest run: two successes
	for i := range maxOutcomeRuns + 1 {
		foldOutcome(1, i%2 == 0)(&o)
	}
	// 1026 runs in all: the two oldest (two successes, a failure) go,
	// three outcomes, counted; the oldest kept is the next success.
	if len(o.runs) != maxOutcomeRuns || o.dropped != 3 {
		t.Fatalf("after %d runs: runs, dropped = %d, %d, want %d, 3", maxOutcomeRuns+2, len(o.runs), o.dropped, maxOutcomeRuns)
	}
	if o.runs[0].n != 1 {
		t.Fatalf("oldest run kept = %+v, want one success", o.runs[0])
	}
}
