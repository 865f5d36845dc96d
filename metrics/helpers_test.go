package metrics

import (
	"testing"
	"time"

	"github.com/tokenpace/tokenpace"
)

// epoch is the start of every hand-built timeline.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// stream builds the Timing of a clean streaming request to target and model
// that starts at start, waits queue for admission, gets its first token ttft
// after being sent and then one token every gap, n tokens in all.
func stream(t *testing.T, target, model string, start time.Time, queue, ttft, gap time.Duration, n int) *tokenpace.Timing {
	t.Helper()
	if n < 1 {
		t.Fatalf("stream(%d tokens): want at least one", n)
	}
	sent := start.Add(queue)
	tm := &tokenpace.Timing{
		Target: target, Model: model, ResponseModel: model, Stream: true,
		Start: start, Sent: sent, WroteRequest: sent, Headers: sent.Add(ttft / 2),
		FirstChunk: sent.Add(ttft / 2), HTTP: []tokenpace.HTTPAttempt{{Status: 200}},
		OutputTokens: n, PromptTokens: 100, UsageReported: true, FinishReason: "stop",
	}
	at := sent.Add(ttft)
	for i := range n {
		if i > 0 {
			at = at.Add(gap)
		}
		tm.Chunks = append(tm.Chunks, at)
	}
	tm.End = at.Add(time.Millisecond)
	return tm
}
