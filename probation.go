package tokenpace

import "time"

// enabled reports whether p holds streams back.
func (p Probation) enabled() bool { return p.Sentence || p.Tokens > 0 || p.For > 0 }

// holdFirst reports whether tr, which has just won the call with its first
// token at at, is held on probation, and starts the probation if so. A
// whole call's answer is never held: it reaches the caller whole, at its
// end, whatever probation would do. c.mu is held.
func (c *call) holdFirst(tr *try, at time.Time) bool {
	p := c.r.pol.Probation
	if !p.enabled() || c.set.buffered || c.whole || c.next >= c.routeCount() {
		return false
	}
	tr.probation.held.Store(true)
	tr.probation.tokens = 0
	if p.For > 0 {
		tr.probation.timer = time.AfterFunc(time.Until(at.Add(p.For)), func() { c.onTry(tr, tryReport{kind: reportCommit, at: time.Now()}) })
	}
	return true
}

// probationOutput counts the tokens of an output chunk of tr that arrived
// at at, and reports tr's commit once Probation.Tokens have arrived.
func (c *call) probationOutput(tr *try, at time.Time, tokens int) {
	if !tr.probation.held.Load() {
		return
	}
	p := c.r.pol.Probation
	c.mu.Lock()
	tr.probation.tokens += tokens
	ready := p.Tokens > 0 && tr.probation.tokens >= p.Tokens
	c.mu.Unlock()
	if ready {
		c.onTry(tr, tryReport{kind: reportCommit, at: at})
	}
}

// probationMilestone reports tr's commit once its first sentence is
// complete, with Probation.Sentence. The commit is now, not at, the
// milestone's time: only the chunk after a terminator (white space, or the
// end) tells it from a decimal point, and the held tokens reach the caller
// when that chunk has arrived, which is when the caller's TTFT must say.
// The end of an output its server failed completes a sentence that proves
// nothing, and commits nothing (onMilestone): the stream broke while held.
func (c *call) probationMilestone(tr *try, name string, _ time.Time) {
	if name == MilestoneFirstSentence && c.r.pol.Probation.Sentence && tr.probation.held.Load() {
		c.onTry(tr, tryReport{kind: reportCommit, at: time.Now()})
	}
}

// release ends tr's probation at at (a commit, or its end while held):
// what it held reaches the caller from then on. c.mu is held.
func (c *call) release(tr *try, at time.Time) {
	if tr.probation.held.Swap(false) {
		tr.probation.committed = at
		if tr.probation.timer != nil {
			tr.probation.timer.Stop()
		}
	}
}

// heldHooks returns what reports tr's output, held on probation and
// committed at at, to the hooks: its first token, then the milestones it
// reached while held, all at at, when the caller received them. It
// returns the KindPanic error of a hook that panicked. c.mu is held.
func (c *call) heldHooks(tr *try, at time.Time) func() error {
	sent, model := c.sent(), c.model(tr.rt)
	names := tr.probation.reached
	tr.probation.reached = nil
	first, milestone := c.hooks.FirstToken, c.hooks.Milestone
	return func() error {
		what := "FirstToken hook"
		return guard(tr.rt.Name, &what, func() {
			if first != nil {
				first(c.ctx, firstTokenInfo(tr.rt.Name, model, sent, at))
			}
			what = "Milestone hook"
			for _, n := range names {
				if milestone != nil {
					milestone(c.ctx, milestoneInfo(tr.rt.Name, model, n.name, sent, at))
				}
			}
		})
	}
}

// endProbation ends tr's probation without a commit (tr breached, failed
// or was stopped), or, when tr ended cleanly while held, releases it at
// its end. c.mu is held.
func (c *call) endProbation(tr *try, clean bool, at time.Time) {
	if !tr.probation.held.Load() {
		return
	}
	if clean {
		c.release(tr, at)
		tr.probation.reached = nil // its hooks are not called (see Probation)
		return
	}
	tr.probation.held.Store(false)
	tr.probation.reached = nil
	if tr.probation.timer != nil {
		tr.probation.timer.Stop()
	}
}

// deliverBroken stamps the output tr held on probation, which broke with
// no route left to fall back to, as reaching the caller at at, now: its
// TTFT is then when the caller received it. An output that waited for
// its validation instead keeps its arrival times (Policy.RetryInvalid).
// c.mu is held.
func (c *call) deliverBroken(tr *try, at time.Time) {
	if !c.set.buffered && c.r.pol.Probation.enabled() {
		tr.probation.committed = at
	}
}

// deliveredAt returns when the caller received a chunk of tr that arrived
// at at: no earlier than tr's commit.
func (tr *try) deliveredAt(at time.Time) time.Time { return later(at, tr.probation.committed) }
