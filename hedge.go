package tokenpace

import "time"

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
		c.hedge.reset(d)
	}
}

// hedgeNext starts a try of kind (a hedge) and re-arms the timer while
// hedges and routes remain. c.mu is held.
func (c *call) hedgeNext(kind AttemptKind) {
	c.hedge.n++
	if c.launch(kind) && c.hedge.n < max(c.r.pol.Hedge.Max, 1) && c.next < c.routeCount() {
		c.hedge.reset(c.hedgeDelay())
	}
}
