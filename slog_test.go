package tokenpace_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestLogHooks checks that a finished request is logged with its figures
// and without the prompt, the completion or the API key.
func TestLogHooks(t *testing.T) {
	tests := []struct {
		name, fault, level string
		want               []string
	}{
		{name: "clean", level: "INFO", want: []string{"ttft=110ms", "itl_p50=10ms", "output_tokens=3", "finish_reason=stop", "model=m"}},
		{name: "reset", fault: "reset;after=2", level: "WARN", want: []string{"error=\"tokenpace: stream reset"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var buf bytes.Buffer
				logger := slog.New(slog.NewTextHandler(&buf, nil))
				c := simClient(t, []simulate.Option{
					simulate.WithModel("m", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond}),
					simulate.WithRTT(10 * time.Millisecond),
					simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return "secret completion text", true }),
				}, tokenpace.WithHooks(tokenpace.LogHooks(logger)))
				var s *tokenpace.Stream[openai.ChatCompletionChunk]
				if tt.fault != "" {
					s = c.NewStreaming(context.Background(), chat("m", 10), withFault(tt.fault))
				} else {
					s = c.NewStreaming(context.Background(), chat("m", 10))
				}
				drain(t, s, 0)
				s.Close()
				out := buf.String()
				if !strings.Contains(out, "level="+tt.level) {
					t.Errorf("log = %q, want level %s", out, tt.level)
				}
				for _, w := range tt.want {
					if !strings.Contains(out, w) {
						t.Errorf("log = %q, want it to hold %q", out, w)
					}
				}
				for _, secret := range []string{"sk-test-secret", "secret completion", "latency."} {
					if strings.Contains(out, secret) {
						t.Errorf("log = %q, holds %q", out, secret)
					}
				}
			})
		})
	}
}
