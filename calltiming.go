package tokenpace

import "time"

// build assembles the call's Timing from its tries: the Attempts in start
// order, the chunks the caller received (across continuations), the
// request timestamps of the first try whose output the caller received
// (else of the last try sent), and the answering try's response data. It
// is final once the call finished and every try ended. c.mu is held.
func (c *call) build() *Timing {
	t := &Timing{Model: c.params.Model, Stream: true, Start: c.start, Invalid: c.invalid}
	if len(c.breaches) > 0 {
		t.Breaches = append([]Breach(nil), c.breaches...)
	}
	final := c.finished
	var lead *Timing
	t.Attempts = make([]Attempt, 0, len(c.tries))
	for _, tr := range c.tries {
		tt := tr.timing()
		final = final && tr.ended
		at := Attempt{
			Target: tr.rt.Name, Model: c.model(tr.rt), Kind: tr.kind, Start: tr.start, End: tt.End,
			Outcome: tr.outcome, Err: tt.Err,
		}
		if len(tt.Chunks) > 0 {
			at.FirstToken = tt.Chunks[0]
		}
		if tr.validErr != nil {
			at.Err = tr.validErr
		}
		if tr.inChain {
			at.Tokens = c.delivered(tr)
		}
		t.Attempts = append(t.Attempts, at)
		if tr.a != nil {
			t.HTTPAttempts += tt.HTTPAttempts
			t.HTTP = append(t.HTTP, tt.HTTP...)
			lead = tt
		}
		if tt.End.After(t.End) {
			t.End = tt.End
		}
	}
	usage := len(c.chain) > 0
	for i, tr := range c.chain {
		tt := tr.timing()
		if i == 0 {
			lead = tt
		}
		n := min(c.delivered(tr), len(tt.Chunks))
		t.Chunks = append(t.Chunks, tt.Chunks[:n]...)
		if tr.cut || !tt.UsageReported {
			usage = false
			t.OutputTokens += n
		} else {
			t.OutputTokens += tt.OutputTokens
		}
		t.Target, t.Model, t.ResponseModel = tt.Target, tt.Model, tt.ResponseModel
		t.ServerAddress, t.ServerPort, t.Streaming = tt.ServerAddress, tt.ServerPort, tt.Streaming
		t.FinishReason, t.PromptTokens, t.CachedTokens = tt.FinishReason, tt.PromptTokens, tt.CachedTokens
		for k, v := range tt.Milestones {
			if _, ok := t.Milestones[k]; !ok && (!tr.cut || (n > 0 && !v.After(tt.Chunks[n-1]))) {
				reachedAt(t, k, v)
			}
		}
	}
	t.UsageReported = usage
	if lead != nil {
		if len(c.chain) == 0 {
			t.Target, t.Model, t.ResponseModel = lead.Target, lead.Model, lead.ResponseModel
			t.ServerAddress, t.ServerPort, t.Streaming = lead.ServerAddress, lead.ServerPort, lead.Streaming
		}
		t.Sent, t.WroteRequest, t.Headers, t.FirstChunk, t.Conn = lead.Sent, lead.WroteRequest, lead.Headers, lead.FirstChunk, lead.Conn
	}
	if final {
		t.Err = c.err
	} else {
		t.End = time.Time{}
	}
	return t
}

// timing returns tr's Timing: final once it ended, else a snapshot.
// c.mu is held.
func (tr *try) timing() *Timing {
	if tr.ended {
		return tr.t
	}
	if tr.a != nil {
		return tr.a.timing()
	}
	return &Timing{Target: tr.rt.Name, Start: tr.start}
}
