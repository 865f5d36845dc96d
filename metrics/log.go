package metrics

import (
	"context"
	"log/slog"

	"github.com/tokenpace/tokenpace"
)

// LogHooks returns Hooks that log each request's final Timing to l (or
// slog.Default() if l is nil): at Info level after a clean end, at Warn
// after an error. A record holds timings, token counts, model and target
// names and the error; never prompt or completion text.
func LogHooks(l *slog.Logger) tokenpace.Hooks {
	return tokenpace.Hooks{Done: func(ctx context.Context, t *tokenpace.Timing) {
		logger := l
		if logger == nil {
			logger = slog.Default()
		}
		level := slog.LevelInfo
		if t.Err != nil {
			level = slog.LevelWarn
		}
		if !logger.Enabled(ctx, level) {
			return
		}
		itl := DistOf(t.ITL())
		attrs := []slog.Attr{
			slog.String("target", t.Target),
			slog.String("model", t.Model),
			slog.String("response_model", t.ResponseModel),
			slog.Bool("stream", t.Stream),
			slog.Duration("queue", t.Queue()),
			slog.Duration("ttfb", t.TTFB()),
			slog.Duration("ttft", t.TTFT()),
			slog.Duration("itl_p50", itl.P50),
			slog.Duration("itl_p99", itl.P99),
			slog.Duration("itl_max", t.MaxGap()), // past the stamped chunks too
			slog.Duration("tpot", t.TPOT()),
			slog.Duration("e2e", t.E2E()),
			slog.Int("prompt_tokens", t.PromptTokens),
			slog.Int("cached_tokens", t.CachedTokens),
			slog.Int("output_tokens", t.OutputTokens),
			slog.String("finish_reason", t.FinishReason),
			slog.Int("http_attempts", len(t.HTTP)),
		}
		if t.Err != nil {
			attrs = append(attrs, slog.String("error", t.Err.Error()))
		}
		logger.LogAttrs(ctx, level, "tokenpace: request done", attrs...)
	}}
}
