package tokenpace

// How a Router call treats tool calls and audio: restart and tell.
//
// A continuation carries text only: the output so far as an assistant
// message (chat, Responses) or the end of the prompt (completions). An
// assistant message cannot hold half a tool call, and a route asked to go
// on after a whole one would either call it again or answer as if it had
// run; nor can it hold half an answer spoken as audio, which a route
// would speak again from its start. So a call whose output, since its
// last restart, handed the caller a tool-call delta (a chat tool-call or
// function-call delta, a Responses tool-call item or a delta of one) or
// audio (a chat delta's audio, a Responses audio or transcript delta) is
// never continued; nor is one that handed it a refusal, which is no text
// to carry on (the continued answer would be an answer, the refusal
// lost), nor one its server rejected once finished (vMLX's and
// Rapid-MLX's verdicts, see codec.AnswerRejected), whose words would
// begin the next route's answer. When such a
// stream stalls, falls under MinTPS or breaks and Policy.Continue is set,
// the call restarts: the next route is sent the original request (no
// prefix, the full max_tokens) as an AttemptRestart, and its output
// replaces the caller's. The caller is told on the first chunk of the
// restarted output: Restarted reports true there, and Accumulated and
// Text start over from that chunk, so the accumulated
// tool calls are the restarted route's, each whole and once. A caller that
// rebuilds calls from the deltas itself drops what it built when Restarted
// is true.
//
// The caller's figures stay the caller's: TTFT runs to the first token it
// read (a dropped one too), E2E to the end it saw, and Chunks and
// OutputTokens count every output chunk it read; Timing.Attempts records
// the restart with its own figures. Without Policy.Continue, with
// FailFast, when no route is left to restart on, or when the restarted
// route ends without any output and no route is left (a *StreamError of
// KindTruncated), the call ends with an error (Err not nil) and the
// caller keeps the partial output: a
// stream whose Err is not nil may end inside a tool call, and its tool
// calls must not be run. A route that fails before any output reaches
// the caller falls back as usual, and a hedged attempt that lost never
// reaches the caller, tool calls included. Legacy completions make no
// tool calls; a non-streaming call hands over whole responses only.

// keptRestartOnly reports whether the output the caller keeps, since the
// chain's last restart, carries a tool call or audio. c.mu is held.
func (c *call) keptRestartOnly() bool {
	for _, tr := range c.out.tries[c.out.kept:] {
		if tr.a.restartOnly() {
			return true
		}
	}
	return false
}

// keptConstrained reports whether a request whose output the caller
// keeps, since the chain's last restart, asked in its body for a
// constrained answer (see exchange.constrained): a continuation would
// begin the constrained form anew. It reads those requests' bodies
// again. c.mu is held.
func (c *call) keptConstrained() bool {
	for _, tr := range c.out.tries[c.out.kept:] {
		if tr.a.x.constrained() {
			return true
		}
	}
	return false
}

// restarted implements restarter: whether the batch the last take
// returned is the first of a restart. Only the caller's goroutine calls
// take and restarted.
func (c *call) restarted() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.restartBatch
}
