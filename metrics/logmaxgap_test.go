package metrics_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/metrics"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestMaxGapPastStampedChunks checks that the log's itl_max and the
// Recorder's ITL maximum are the longest gap of the whole stream, also one
// past the chunks a Timing stamps (the first 65,536): a stream of 66,100
// tokens stalls 2 s after its 66,000th.
func TestMaxGapPastStampedChunks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		rec := metrics.NewRecorder()
		ts := simulate.StartInMemory(t,
			simulate.WithModel("m", &simulate.Fixed{TTFT: 10 * time.Millisecond, ITL: time.Millisecond}),
			simulate.WithMaxTokensLimit(1<<20),
			simulate.WithFaults(simulate.Faults{Stall: 1, After: 66_000, For: 2 * time.Second}))
		oc := openai.NewClient(option.WithBaseURL(ts.URL), option.WithHTTPClient(ts.Client), option.WithMaxRetries(0))
		c := tokenpace.NewClient(oc, tokenpace.WithHooks(metrics.LogHooks(slog.New(slog.NewTextHandler(&buf, nil))), rec.Hooks()))
		tm := call(t, c, "m", "hello", 66_100)
		if tm.OutputChunks != 66_100 || len(tm.Chunks) >= tm.OutputChunks {
			t.Fatalf("chunks: %d stamped of %d; want 66,100, more than the stamped ones", len(tm.Chunks), tm.OutputChunks)
		}
		if got := tm.MaxGap(); got < 2*time.Second {
			t.Fatalf("Timing.MaxGap() = %v, want at least the 2 s stall", got)
		}
		want := "itl_max=" + tm.MaxGap().String()
		if out := buf.String(); !strings.Contains(out, want) {
			t.Errorf("log = %q, want it to hold %q", out, want)
		}
		if got := rec.Snapshot().ITL.Max; got != tm.MaxGap() {
			t.Errorf("Recorder's ITL max = %v, want %v", got, tm.MaxGap())
		}
	})
}
