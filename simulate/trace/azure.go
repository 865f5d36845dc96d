package trace

import (
	"io"
	"time"
)

// azureTime is the layout of the Azure traces' TIMESTAMP column, as the
// 2023 traces give it; azureTimeZoned is the 2024 week-long traces', which
// end in a UTC offset (2024-05-10 00:00:00.009930+00:00, and with no
// fraction at a whole second: 2024-05-12 00:00:00+00:00).
const (
	azureTime      = "2006-01-02 15:04:05.9999999"
	azureTimeZoned = azureTime + "Z07:00"
)

// parseAzureTime reads a TIMESTAMP with or without a UTC offset (without
// one, it is UTC).
func parseAzureTime(s string) (time.Time, error) {
	if t, err := time.Parse(azureTime, s); err == nil {
		return t, nil
	}
	return time.Parse(azureTimeZoned, s)
}

// maxAzureSpan bounds how far a request's time may be from the trace's
// first (some 31 years), in an Azure or a BurstGPT trace: a
// time.Duration holds 292 years, and a TIMESTAMP centuries away (a typo)
// came out as its saturated minimum, a request before all others by 292
// years.
const maxAzureSpan = 1e9 * time.Second

// readAzure reads an Azure LLM inference trace.
func (t *Trace) readAzure(r io.Reader) error {
	tab, err := newCSVTable(r, t.Name, "Azure", "TIMESTAMP", "ContextTokens", "GeneratedTokens")
	if err != nil {
		return err
	}
	var first time.Time
	for {
		ok, err := tab.next()
		if !ok {
			return err
		}
		at, err := parseAzureTime(tab.field("TIMESTAMP"))
		if err != nil {
			return tab.errorf("TIMESTAMP %q: want a time such as 2023-11-16 18:15:46.6805900 or 2024-05-10 00:00:00.009930+00:00", tab.field("TIMESTAMP"))
		}
		if first.IsZero() {
			first = at
		}
		if d := at.Sub(first); d > maxAzureSpan || d < -maxAzureSpan {
			return tab.errorf("TIMESTAMP %q: %.3g s from the trace's first, want within %.0g s of it", tab.field("TIMESTAMP"), d.Seconds(), maxAzureSpan.Seconds())
		}
		p, err := tab.tokens("ContextTokens", 1)
		if err != nil {
			return err
		}
		o, err := tab.tokens("GeneratedTokens", 0)
		if err != nil {
			return err
		}
		t.Requests = append(t.Requests, Request{At: at.Sub(first), PromptTokens: p, OutputTokens: max(o, 1)})
	}
}
