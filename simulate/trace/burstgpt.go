package trace

import (
	"io"
	"math"
	"strconv"
	"time"
)

// readBurstGPT reads a BurstGPT trace.
func (t *Trace) readBurstGPT(r io.Reader) error {
	tab, err := newCSVTable(r, t.Name, "BurstGPT", "Timestamp", "Request tokens", "Response tokens")
	if err != nil {
		return err
	}
	for {
		ok, err := tab.next()
		if !ok {
			return err
		}
		s, err := strconv.ParseFloat(tab.field("Timestamp"), 64)
		if err != nil || !(s >= 0 && s <= maxAzureSpan.Seconds()) {
			// 1e10 s, taken before, is past what a time.Duration holds
			// (9.2e9 s): such a time came out negative.
			return tab.errorf("Timestamp %q: want seconds since the trace's start, a number in [0, 1e9]", tab.field("Timestamp"))
		}
		p, err := tab.tokens("Request tokens", 0)
		if err != nil {
			return err
		}
		o, err := tab.tokens("Response tokens", 0)
		if err != nil {
			return err
		}
		if o == 0 {
			t.Failed++ // failed in the traced service
			continue
		}
		at := time.Duration(math.Round(s * 1e9))
		t.Requests = append(t.Requests, Request{At: at, PromptTokens: max(p, 1), OutputTokens: o})
	}
}
