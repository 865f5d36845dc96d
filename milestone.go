package tokenpace

import (
	"strings"
	"time"
	"unicode"
)

// milestone is a user-defined predicate over the accumulated text.
type milestone struct {
	name    string
	reached func(text string) bool
}

// milestones finds when the text of the first choice first holds a complete
// sentence, a complete line and whatever user predicates ask for. It runs on
// the attempt's reader goroutine and scans each delta once; it keeps the
// accumulated text only when there are user predicates.
type milestones struct {
	user []milestone

	sentence, line bool // reached
	afterStop      bool // the text so far ends in a sentence terminator
	any            bool // some text arrived
	userDone       []bool
	userLeft       int
	text           strings.Builder
}

func newMilestones(user []milestone) *milestones {
	return &milestones{user: user, userDone: make([]bool, len(user)), userLeft: len(user)}
}

// pending reports whether a milestone is still to be reached.
func (m *milestones) pending() bool { return !m.sentence || !m.line || m.userLeft > 0 }

// add takes the next content delta of the first choice, which arrived at,
// and calls reach for every milestone it completes.
func (m *milestones) add(delta string, reach func(name string)) {
	if delta == "" {
		return
	}
	m.any = true
	if !m.line && strings.IndexByte(delta, '\n') >= 0 {
		m.line = true
		reach(MilestoneFirstLine)
	}
	if !m.sentence && m.scanSentence(delta) {
		m.sentence = true
		reach(MilestoneFirstSentence)
	}
	if m.userLeft == 0 {
		return
	}
	m.text.WriteString(delta)
	for i, u := range m.user {
		if !m.userDone[i] && u.reached(m.text.String()) {
			m.userDone[i] = true
			m.userLeft--
			reach(u.name)
		}
	}
}

// end marks the end of the output: text that arrived without a final
// terminator or newline still forms a complete sentence and line.
func (m *milestones) end(reach func(name string)) {
	if !m.any {
		return
	}
	if !m.line {
		m.line = true
		reach(MilestoneFirstLine)
	}
	if !m.sentence {
		m.sentence = true
		reach(MilestoneFirstSentence)
	}
}

// scanSentence reports whether delta completes a sentence: a terminator
// (. ! ? …), possibly followed by closing quotes or brackets, then white
// space; or a full-width terminator (。！？), which needs no space.
func (m *milestones) scanSentence(delta string) bool {
	for _, r := range delta {
		switch {
		case r == '。' || r == '！' || r == '？':
			return true
		case r == '.' || r == '!' || r == '?' || r == '…':
			m.afterStop = true
		case m.afterStop && unicode.IsSpace(r):
			return true
		case m.afterStop && isCloser(r):
			// "Done." or (see above.) — the sentence ends after the closer.
		default:
			m.afterStop = false
		}
	}
	return false
}

func isCloser(r rune) bool {
	return r == '"' || r == '\'' || r == ')' || r == ']' || r == '”' || r == '’' || r == '»'
}

// reachedAt records a milestone in t at the arrival time of the chunk that
// reached it.
func reachedAt(t *Timing, name string, at time.Time) {
	if t.Milestones == nil {
		t.Milestones = make(map[string]time.Time, 2)
	}
	t.Milestones[name] = at
}
