package tokenpace

import "time"

// armHedge sets the hedge timer after the call's first try started.
// c.mu is held.
func (c *call) armHedge() {
	if d := c.hedgeDelay(); d > 0 {
		c.hedge.due = time.Now().Add(d)
		c.hedge.timer = time.AfterFunc(d, c.onHedge)
	}
}

// hedgeDelay returns how long the call waits for a first token before it
// hedges: the learnt TTFT percentile of the route first tried, once known,
// else Hedge.After. c.mu is held.
func (c *call) hedgeDelay() time.Duration {
	h := c.r.pol.Hedge
	d := h.After
	if h.Percentile > 0 && len(c.tries) > 0 {
		need := h.MinSamples
		if need == 0 {
			need = defaultHedgeSamples
		}
		if p, n := c.ttftModel(c.tries[len(c.tries)-1].rt).Percentile(h.Percentile); n >= need {
			d = p
		}
	}
	return d
}

// rearmHedge restarts the hedge delay when a fallback has just started
// (the tries before it failed): the hedge waits for the running try's
// first token, with the delay of its route, not for the failed ones'.
// c.mu is held.
func (c *call) rearmHedge() {
	if c.hedge.timer == nil || c.won != nil || c.hedge.n >= max(c.r.pol.Hedge.Max, 1) || c.next >= c.routeCount() {
		return
	}
	if d := c.hedgeDelay(); d > 0 {
		c.hedge.due = time.Now().Add(d)
		c.hedge.timer.Reset(d)
	}
}

// onHedge starts a hedged try if no try has produced a token yet, and
// no try has breached under FailFast: then no other route is tried (a
// hedge already running may still answer).
func (c *call) onHedge() {
	c.mu.Lock()
	if c.failedFast != nil || !shouldHedge(c.state == callRunning, c.won != nil, c.ctx.Err() != nil, time.Now(), c.hedge.due) {
		// Ended, answered, failed fast, or re-armed (rearmHedge) while
		// this run of the timer waited for the lock: the re-armed run
		// comes later.
		c.mu.Unlock()
		return
	}
	limit := max(c.r.pol.Hedge.Max, 1)
	c.hedge.n++
	if c.launch(AttemptHedge) && c.hedge.n < limit && c.next < c.routeCount() {
		d := c.hedgeDelay()
		c.hedge.due = time.Now().Add(d)
		c.hedge.timer.Reset(d)
	}
	c.unlockAndReport()
}
