package tokenpace

import (
	"testing"

	"github.com/tokenpace/tokenpace/internal/milestone"
)

// TestMilestoneNames: the names Timing.Milestones records for the built-in
// milestones are those the tracker reports.
func TestMilestoneNames(t *testing.T) {
	if MilestoneFirstSentence != milestone.FirstSentence || MilestoneFirstLine != milestone.FirstLine {
		t.Errorf("names %q, %q; the tracker's %q, %q", MilestoneFirstSentence, MilestoneFirstLine, milestone.FirstSentence, milestone.FirstLine)
	}
}
