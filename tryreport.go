package tokenpace

import "time"

// What a try tells its call.
//
// A try's attempt and watchdog, its wait in admission and its probation
// report their events to the handler the call was begun with (call.onTry,
// see begin), which classifies them, decides and acts: what starts a try
// knows only where its events go, not what the call does about them. An
// output chunk, the per-chunk path, is no such event: it goes to the
// watchdog's check and to probation's count, without the call's lock
// (see onOutput).

// tryReport is what a try's attempt, its watchdog, its admission wait or
// its probation tells the call: the kind of the event and the facts of
// that kind.
type tryReport struct {
	kind      reportKind
	at        time.Time    // reportFirst, reportMilestone, reportCommit
	name      string       // reportMilestone: the milestone reached
	failedEnd bool         // reportMilestone: reached at the end of an output its server failed, which commits no probation
	t         *Timing      // reportEnd: the attempt's final Timing
	breach    *BudgetError // reportBreach
	waited    bool         // reportBreach: the deadline passed while the body had yet to end
}

// reportKind names the events a try reports to its call.
type reportKind uint8

const (
	reportFirst     reportKind = iota // the first output-bearing chunk arrived
	reportMilestone                   // a milestone was reached
	reportCommit                      // the try's probation ended well: its held output goes to the caller
	reportBreach                      // the try exceeded its budget
	reportEnd                         // the attempt ended
	reportAdmitted                    // the try's wait in admission is over (or was cut short)
)
