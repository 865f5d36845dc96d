package tokenpace

import "time"

// What a try tells its call.
//
// A try's attempt and watchdog, and its wait in admission, report their
// events to the call through one entry, onAttempt. An output chunk, the
// per-chunk path, is handled there, below the call's decisions: the
// watchdog's check and probation's count, without the call's lock. Every
// other event goes to the handler the call was started with (call.onTry,
// see begin), which classifies it, decides and acts: starting a try needs
// to know only where its events go, not what the call does about them.

// tryReport is what a try's attempt, its watchdog or its admission wait
// tells the call: the kind of the event and the facts of that kind. A held
// try that the probation timer commits takes a path of its own
// (probation).
type tryReport struct {
	kind   reportKind
	at     time.Time    // reportFirst, reportOutput, reportMilestone
	tokens int          // reportOutput
	name   string       // reportMilestone: the milestone reached
	t      *Timing      // reportEnd: the attempt's final Timing
	breach *BudgetError // reportBreach
	waited bool         // reportBreach: the deadline passed while the body had yet to end
}

// reportKind names the events a try reports to its call.
type reportKind uint8

const (
	reportOutput    reportKind = iota // an output-bearing chunk arrived (the first one too)
	reportFirst                       // the first output-bearing chunk arrived
	reportMilestone                   // a milestone was reached
	reportBreach                      // the try exceeded its budget
	reportEnd                         // the attempt ended
	reportAdmitted                    // the try's wait in admission is over (or was cut short)
)

// reporters returns what tr's attempt and watchdog call on their events:
// each reports to onAttempt.
func (c *call) reporters(tr *try) (attemptEvents, func(BudgetError, bool)) {
	ev := attemptEvents{
		firstToken: func(_ *attempt, at time.Time) { c.onAttempt(tr, &tryReport{kind: reportFirst, at: at}) },
		output: func(_ *attempt, at time.Time, tokens int) {
			c.onAttempt(tr, &tryReport{kind: reportOutput, at: at, tokens: tokens})
		},
		milestone: func(_ *attempt, name string, at time.Time) {
			c.onAttempt(tr, &tryReport{kind: reportMilestone, at: at, name: name})
		},
		end: func(_ *attempt, t *Timing) { c.onAttempt(tr, &tryReport{kind: reportEnd, t: t}) },
	}
	breached := func(b BudgetError, waited bool) {
		c.onAttempt(tr, &tryReport{kind: reportBreach, breach: &b, waited: waited})
	}
	return ev, breached
}

// onAttempt is the one entry through which a try reports its events to
// the call. An output chunk, the per-chunk path, goes to the watchdog's
// check and to probation without a lock of the call (the caller is woken
// by the attempt itself, once per read of the body); every other event
// goes to the call's handler, onTry.
func (c *call) onAttempt(tr *try, r *tryReport) {
	if r.kind != reportOutput {
		c.onTry(tr, *r)
		return
	}
	tr.w.token(r.at, r.tokens)
	c.probationOutput(tr, r.at, r.tokens)
}
