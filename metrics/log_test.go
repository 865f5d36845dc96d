package metrics

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace"
)

// TestLogHooks checks that a finished request is logged with its figures,
// at Warn after an error. That no log holds the prompt, the completion or
// the API key is TestAPIKeyNeverReported's, on real requests.
func TestLogHooks(t *testing.T) {
	reset := &tokenpace.StreamError{Kind: tokenpace.KindReset}
	tests := []struct {
		name  string
		err   error
		level string
		want  []string
	}{
		{name: "clean", level: "INFO", want: []string{"ttft=110ms", "itl_p50=10ms", "itl_max=10ms", "output_tokens=3", "finish_reason=stop", "model=m", "target=small"}},
		{name: "reset", err: reset, level: "WARN", want: []string{`error="tokenpace: stream reset"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			tm := stream(t, "small", "m", time.Unix(0, 0), 5*time.Millisecond, 110*time.Millisecond, 10*time.Millisecond, 3)
			tm.Err = tt.err
			LogHooks(slog.New(slog.NewTextHandler(&buf, nil))).Done(context.Background(), tm)
			out := buf.String()
			if !strings.Contains(out, "level="+tt.level) {
				t.Errorf("log = %q, want level %s", out, tt.level)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("log = %q, want it to hold %q", out, w)
				}
			}
		})
	}
}
