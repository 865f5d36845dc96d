package tokenpace

import "time"

// build assembles the call's Timing from its tries, with the caller's
// figures: Sent is when the call's first request left, Chunks the arrival
// of every output chunk the caller received (across continuations), End
// when the last try ended, so that TTFT, ITL, TPOT and E2E are what the
// caller lived and Queue only the admission wait before the first request.
// Headers, FirstChunk and the connection are those of the first try whose
// output the caller received (else of the last try sent), the response
// data those of the try that answered last. Attempts keep each try's own
// figures. A whole call's caller saw no token before the whole answer:
// its Timing is that of Client.New for the same answer (see wholeTiming).
// The Timing is final once the call finished and every try ended.
// c.mu is held.
func (c *call) build() *Timing {
	if c.bytes < 0 {
		c.bytes = c.req.PromptBytes()
	}
	t := &Timing{Model: c.params.Model, Stream: !c.whole, API: c.api(), Start: c.start, Sent: c.sent(), PromptBytes: c.bytes, parts: true}
	if len(c.breaches) > 0 {
		t.Breaches = append([]BudgetError(nil), c.breaches...)
	}
	final := c.state >= callFinishing
	var lead *Timing
	t.Attempts = make([]Attempt, 0, len(c.tries))
	for _, tr := range c.tries {
		tt := tr.timing()
		final = final && tr.state == tryEnded
		t.Attempts = append(t.Attempts, c.attempt(tr, tt))
		if tr.a != nil {
			t.HTTP = append(t.HTTP, tt.HTTP...)
			lead = tt
		}
		if tt.End.After(t.End) {
			t.End = tt.End
		}
	}
	usage := len(c.out.tries) > 0
	for i, tr := range c.out.tries {
		tt := tr.timing()
		if i == 0 {
			lead = tt
		}
		u := c.addDelivered(t, tr, tt)
		if tr.resume != nil && u {
			// A resumed response's usage counts its whole output, the
			// tries' before it included.
			t.OutputTokens, t.ReasoningTokens, t.rejected, usage = tt.OutputTokens, tt.ReasoningTokens, tt.rejected, true
			t.hidden = 0
			if !t.reasoningShown {
				t.hidden = tt.ReasoningTokens
			}
		}
		usage = u && usage
	}
	t.UsageReported = usage
	if lead != nil {
		if len(c.out.tries) == 0 {
			t.Target, t.Model, t.ResponseModel, t.ResponseID = lead.Target, lead.Model, lead.ResponseModel, lead.ResponseID
			t.ServerAddress, t.ServerPort, t.Streaming = lead.ServerAddress, lead.ServerPort, lead.Streaming
		}
		t.WroteRequest, t.Headers, t.FirstChunk, t.Conn = lead.WroteRequest, lead.Headers, lead.FirstChunk, lead.Conn
	}
	if c.whole {
		wholeTiming(t)
	}
	if final {
		t.Err = c.err
	} else {
		t.End = time.Time{}
	}
	return t
}

// addDelivered adds to t what the caller received of chained try tr,
// whose Timing is tt: its chunks, tokens, response data and milestones.
// It reports whether the token count is the server's. c.mu is held.
func (c *call) addDelivered(t *Timing, tr *try, tt *Timing) (usage bool) {
	n := min(tr.a.delivered(), tt.OutputChunks)
	stamped := min(n, len(tt.Chunks))
	for _, at := range tt.Chunks[:stamped] {
		t.addChunk(tr.deliveredAt(at))
	}
	if n > stamped {
		// Past the try's stamps, only its count, last arrival and
		// longest gap are known (the last, of all its chunks).
		t.OutputChunks += n - stamped
		t.LastChunk = tt.LastChunk
		t.laterGap = max(t.laterGap, tt.laterGap)
	}
	usage = tr.cause == nil && tt.UsageReported
	switch {
	case usage:
		t.OutputTokens += tt.OutputTokens
		t.ReasoningTokens += tt.ReasoningTokens
		t.hidden += tt.hiddenReasoning()
		t.rejected += tt.rejected
	case !c.whole:
		// A whole answer without usage has no count of its own: its one
		// chunk is the answer, not a token (a background response still
		// queued has none), and Client.New says 0.
		t.OutputTokens += n
	}
	t.reasoningShown = t.reasoningShown || tt.reasoningShown
	t.Target, t.Model, t.ResponseModel, t.ResponseID = tt.Target, tt.Model, tt.ResponseModel, tt.ResponseID
	t.ServerAddress, t.ServerPort, t.Streaming = tt.ServerAddress, tt.ServerPort, tt.Streaming
	t.FinishReason, t.PromptTokens, t.CachedTokens = tt.FinishReason, tt.PromptTokens, tt.CachedTokens
	for k, v := range tt.Milestones {
		// Reached while held on probation, it reached the caller with
		// the held output.
		v = tr.deliveredAt(v)
		if _, ok := t.Milestones[k]; !ok && (tr.cause == nil || (n > 0 && !v.After(t.LastChunk))) {
			reachedAt(t, k, v)
		}
	}
	return usage
}

// attempt returns the Attempt of tr, whose Timing is tt. c.mu is held.
func (c *call) attempt(tr *try, tt *Timing) Attempt {
	at := Attempt{
		Target: tr.rt.Name, Model: c.model(tr.rt), Kind: tr.kind, Start: tr.start, Sent: tt.Sent, End: tt.End,
		Outcome: tr.outcome, Err: tt.Err, Affinity: c.affine(tr), Admission: tr.ticket.held,
		Committed: tr.probation.committed, ResponseID: tt.ResponseID,
	}
	if len(tt.Chunks) > 0 && !c.whole {
		at.FirstToken = tt.Chunks[0]
	}
	if tr.validErr != nil {
		at.Err = tr.validErr
	}
	switch {
	case tr.chained && c.whole:
		// The whole answer, as the call's Timing counts it.
		if tr.cause == nil && tt.UsageReported {
			at.Tokens = tt.OutputTokens
		}
	case tr.chained:
		at.Tokens = tr.a.delivered()
	}
	return at
}

// wholeTiming makes t, a whole call's Timing built from its tries, what
// Client.New gives for the same answer: its caller saw no token before
// the whole answer, so t has no first token (TTFT, UserTTFT and TPOT 0;
// a TTFT objective does not apply to it, an E2E one does), no chunks and
// no milestones. Its tries' own Timings keep the whole answer's arrival
// as their one chunk, which the Router's policies read (the TTFT budget
// and the route's model of the time to a whole answer).
func wholeTiming(t *Timing) {
	t.Chunks, t.OutputChunks, t.laterGap = nil, 0, 0
	t.FirstChunk, t.LastChunk = time.Time{}, time.Time{}
	t.Milestones = nil
}

// timing returns tr's Timing: final once it ended, else a snapshot.
// c.mu is held.
func (tr *try) timing() *Timing {
	if tr.state == tryEnded {
		return tr.t
	}
	if tr.a != nil {
		return tr.a.timing()
	}
	return &Timing{Target: tr.rt.Name, Start: tr.start}
}

// api returns the API the call uses.
func (c *call) api() API { return API(c.req.API()) }

// takeFinal builds the final Timing once the call has finished and every
// try has ended, and returns it the first time. c.mu is held.
func (c *call) takeFinal() *Timing {
	if c.state != callFinishing {
		return nil
	}
	for _, tr := range c.tries {
		if tr.state != tryEnded {
			return nil
		}
	}
	c.state = callEnded
	c.final = c.build()
	c.noteAffinity()
	c.noteHosts()
	return c.final
}

// noteHosts records, once the call has ended, the server each of its
// tries sent to, as its route's (see signedRoute). c.mu is held.
func (c *call) noteHosts() {
	for _, tr := range c.tries {
		if tr.a == nil {
			continue
		}
		if host := tr.a.x.origin().Server; host != "" {
			tr.rt.host.Store(&host)
		}
	}
}
