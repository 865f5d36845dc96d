package tokenpace_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
)

// TestReplayRecordedCompletions replays real servers' /v1/completions
// streams with their recorded read timing: every text event is a chunk
// stamped with the arrival of its read, to the nanosecond, and the usage
// is the server's when it sent one.
func TestReplayRecordedCompletions(t *testing.T) {
	tests := []struct {
		file           string
		usage          bool
		prompt, output int
	}{
		// Usage rides on the finish event.
		{file: "llamacpp-110m-completions-stream.jsonl", usage: true, prompt: 5, output: 20},
		// A build of August 2026: the headers come at once, before the
		// prefill, and the usage names the cached prompt tokens.
		{file: "llamacpp-2026-completions-stream.jsonl", usage: true, prompt: 7, output: 12},
		// Ollama (August 2026), fill-in-the-middle: a usage of zeros with
		// every event, the server's own in one of its own at the end; the
		// first prefill of a 1,304-token prompt on a CPU, 14 s to the
		// headers.
		{file: "ollama-2026-completions-suffix-stream.jsonl", usage: true, prompt: 1304, output: 16},
		// No usage event: the output is counted from the text events.
		{file: "llmdsim-completions-stream.jsonl", output: 10},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := loadRecording(t, tt.file)
				wantText, wantAt := recordedCompletion(t, rec)
				url, hc := serve(t, replay(rec))
				c := tokenpace.NewClient(openaiClient(url, hc))
				s := c.NewCompletionStreaming(context.Background(), fim("m", "Once upon a time", ""))
				text, _ := readCompletion(s, time.Now())
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				if text != wantText || s.Text() != wantText {
					t.Errorf("text = %q, Text() = %q, want %q", text, s.Text(), wantText)
				}
				tm := s.Timing()
				if len(tm.Chunks) != len(wantAt) {
					t.Fatalf("len(Chunks) = %d, want %d", len(tm.Chunks), len(wantAt))
				}
				for i, at := range tm.Chunks {
					if got := at.Sub(tm.Sent); got != wantAt[i] {
						t.Errorf("Chunks[%d] at %v, want %v", i, got, wantAt[i])
					}
				}
				if tm.TTFT() != wantAt[0] || tm.E2E() != ms(rec.Reads[len(rec.Reads)-1].TMS) {
					t.Errorf("TTFT, E2E = %v, %v, want %v, %v", tm.TTFT(), tm.E2E(), wantAt[0], ms(rec.Reads[len(rec.Reads)-1].TMS))
				}
				if tm.UsageReported != tt.usage || tm.OutputTokens != tt.output || tm.PromptTokens != tt.prompt || tm.FinishReason != "length" {
					t.Errorf("usage reported %v, output %d, prompt %d, finish %q; want %v, %d, %d, length",
						tm.UsageReported, tm.OutputTokens, tm.PromptTokens, tm.FinishReason, tt.usage, tt.output, tt.prompt)
				}
			})
		})
	}
}

// recordedCompletion decodes a recorded completions stream on its own:
// its text and the arrival of each event that carries some.
func recordedCompletion(t *testing.T, rec recording) (string, []time.Duration) {
	t.Helper()
	var b strings.Builder
	var at []time.Duration
	eachRecordedEvent(t, rec, func(c struct {
		Choices []struct{ Text string } `json:"choices"`
	}, rd recordedRead) {
		if len(c.Choices) > 0 && c.Choices[0].Text != "" {
			b.WriteString(c.Choices[0].Text)
			at = append(at, ms(rd.TMS))
		}
	})
	return b.String(), at
}
