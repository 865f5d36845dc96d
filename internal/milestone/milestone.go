// Package milestone finds when the streamed text of an answer first holds
// a complete sentence, a complete line, or whatever a caller's predicate
// asks for: the moments a voice pipeline can start speaking or an editor
// can show a line. It scans each delta once, on the goroutine that reads
// the response, and keeps the accumulated text only for predicates.
package milestone

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The built-in milestones' names.
const (
	FirstSentence = "first_sentence"
	FirstLine     = "first_line"
)

// Predicate is a caller's milestone: Name is reached when Reached first
// holds for the accumulated text.
type Predicate struct {
	Name    string
	Reached func(text string) bool
}

// Tracker finds when the text of the first choice first holds a complete
// sentence, a complete line and whatever the predicates ask for. It scans
// each delta once; it keeps the accumulated text only when there are
// predicates. It is not safe for concurrent use: the reader of a response
// owns it.
type Tracker struct {
	user []Predicate

	sentence, line bool      // reached
	afterStop      bool      // the text so far ends in a sentence terminator
	stopAt         time.Time // when the chunk with that terminator arrived
	any            bool      // some text arrived
	userDone       []bool
	userLeft       int
	text           strings.Builder
	split          string // the start of a rune the last delta cut short
}

// New returns a Tracker of the built-in milestones and of user.
func New(user []Predicate) *Tracker {
	return &Tracker{user: user, userDone: make([]bool, len(user)), userLeft: len(user)}
}

// Pending reports whether a milestone is still to be reached.
func (m *Tracker) Pending() bool { return !m.sentence || !m.line || m.userLeft > 0 }

// Add takes the next content delta of the first choice, which arrived at,
// and calls reach for every milestone it completes, with the arrival of
// the chunk that completed it: a sentence is complete at its terminator,
// though only the white space after it (or the end) tells a terminator
// from a decimal point, so its milestone may be reported one chunk later
// with the terminator's time.
func (m *Tracker) Add(delta string, at time.Time, reach func(name string, at time.Time)) {
	if delta == "" {
		return
	}
	m.any = true
	if !m.line && strings.IndexByte(delta, '\n') >= 0 {
		m.line = true
		reach(FirstLine, at)
	}
	if !m.sentence {
		scan := delta
		if m.split != "" {
			// A rune split between two chunks: scan it whole.
			scan = m.split + delta
			m.split = ""
		}
		if n := partialRune(scan); n > 0 {
			m.split, scan = scan[len(scan)-n:], scan[:len(scan)-n]
		}
		if end, ok := m.scanSentence(scan, at); ok {
			m.sentence = true
			reach(FirstSentence, end)
		}
	}
	if m.userLeft == 0 {
		return
	}
	m.text.WriteString(delta)
	for i, u := range m.user {
		if !m.userDone[i] && u.Reached(m.text.String()) {
			m.userDone[i] = true
			m.userLeft--
			reach(u.Name, at)
		}
	}
}

// End marks the end of the output, at at: text that arrived without a
// final terminator or newline still forms a complete sentence and line.
func (m *Tracker) End(at time.Time, reach func(name string, at time.Time)) {
	if !m.any {
		return
	}
	if !m.line {
		m.line = true
		reach(FirstLine, at)
	}
	if !m.sentence {
		m.sentence = true
		if m.afterStop {
			at = m.stopAt
		}
		reach(FirstSentence, at)
	}
}

// scanSentence reports whether a sentence is complete once delta, which
// arrived at at, is added, and when it ended: a terminator (. ! ? …),
// possibly followed by closing quotes or brackets, ends one when white
// space follows; a full-width terminator (。！？) needs no space.
func (m *Tracker) scanSentence(delta string, at time.Time) (time.Time, bool) {
	for _, r := range delta {
		switch {
		case r == '。' || r == '！' || r == '？':
			return at, true
		case r == '.' || r == '!' || r == '?' || r == '…':
			m.afterStop, m.stopAt = true, at
		case m.afterStop && unicode.IsSpace(r):
			return m.stopAt, true
		case m.afterStop && isCloser(r):
			// "Done." or (see above.) — the sentence ends after the closer.
			m.stopAt = at
		default:
			m.afterStop = false
		}
	}
	return time.Time{}, false
}

// partialRune returns the length of the incomplete UTF-8 sequence that
// ends s, if s ends with the first bytes of a rune: 0 otherwise.
func partialRune(s string) int {
	for n := 1; n <= min(len(s), utf8.UTFMax-1); n++ {
		b := s[len(s)-n]
		if utf8.RuneStart(b) {
			if !utf8.FullRuneInString(s[len(s)-n:]) {
				return n
			}
			return 0
		}
	}
	return 0
}

func isCloser(r rune) bool {
	return r == '"' || r == '\'' || r == ')' || r == ']' || r == '”' || r == '’' || r == '»'
}
