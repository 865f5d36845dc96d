package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"time"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
)

// requestRow is one request in the --export file (JSON lines): its
// timestamps, figures, tokens, outcome and route, for the user's own
// analysis. Its field names are a contract.
type requestRow struct {
	// I is the request's index in the run (0 for the first measured).
	I int `json:"i"`
	// Scheduled is when an open loop meant to send it; absent otherwise.
	Scheduled *time.Time `json:"scheduled,omitempty"`
	// Sent, Headers, FirstToken and End: when it left, when the response
	// headers, its first token and its end came; absent when they did not.
	Sent       *time.Time `json:"sent,omitempty"`
	Headers    *time.Time `json:"headers,omitempty"`
	FirstToken *time.Time `json:"first_token,omitempty"`
	End        *time.Time `json:"end,omitempty"`
	// LateMs is how late the client sent it (open loop); TTFTMs, TPOTMs
	// and E2EMs the server's figures, from the send.
	LateMs       float64 `json:"late_ms"`
	TTFTMs       float64 `json:"ttft_ms"`
	TPOTMs       float64 `json:"tpot_ms"`
	E2EMs        float64 `json:"e2e_ms"`
	Chunks       int     `json:"chunks"`
	PromptTokens int     `json:"prompt_tokens"`
	CachedTokens int     `json:"cached_tokens"`
	OutputTokens int     `json:"output_tokens"`
	// UsageReported says the token counts are the server's.
	UsageReported bool   `json:"usage_reported"`
	FinishReason  string `json:"finish_reason,omitempty"`
	// Error is the error's kind, as the metrics name it (e.g. "429",
	// "stream_reset"); empty for a request that ended cleanly.
	Error string `json:"error,omitempty"`
	// Server and Model: where it went, and the model that answered.
	Server string `json:"server,omitempty"`
	Model  string `json:"model,omitempty"`
	// HTTPTries counts the HTTP requests it took.
	HTTPTries int `json:"http_tries"`
}

// newRequestRow describes request i, whose Timing is t and whose
// scheduled send was scheduled (zero for a closed loop).
func newRequestRow(i int, t *tokenpace.Timing, scheduled time.Time) requestRow {
	at := func(v time.Time) *time.Time {
		if v.IsZero() {
			return nil
		}
		return &v
	}
	r := requestRow{
		I: i, Scheduled: at(scheduled), Sent: at(t.Sent), Headers: at(t.Headers), End: at(t.End),
		TTFTMs: msf(t.TTFT()), TPOTMs: msf(t.TPOT()), E2EMs: msf(t.E2E()),
		Chunks: max(t.OutputChunks, len(t.Chunks)), PromptTokens: t.PromptTokens, CachedTokens: t.CachedTokens,
		OutputTokens: t.OutputTokens, UsageReported: t.UsageReported, FinishReason: t.FinishReason,
		Server: t.ServerAddress, Model: t.ResponseModel, HTTPTries: len(t.HTTP),
	}
	if len(t.Chunks) > 0 {
		r.FirstToken = at(t.Chunks[0])
	}
	if !scheduled.IsZero() && t.Sent.After(scheduled) {
		r.LateMs = msf(t.Sent.Sub(scheduled))
	}
	if t.Err != nil {
		r.Error = metrics.ErrorType(t.Err)
	}
	return r
}

// writeExport writes rows to path, one JSON object a line, in the order
// of the requests.
func writeExport(path string, rows []requestRow) (err error) {
	slices.SortFunc(rows, func(a, b requestRow) int { return a.I - b.I })
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for i := range rows {
		if err := enc.Encode(&rows[i]); err != nil {
			return err
		}
	}
	return w.Flush()
}
