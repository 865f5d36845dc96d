package tokenpace_test

import (
	"testing"
	"testing/synctest"
)

// TestLMStudioLoadFailureSentAgain: LM Studio, loading a model at the
// request, answers a load that failed ("Failed to load model \"…\".
// Error: Operation canceled.", charmbracelet/crush#2546) with 400 and the
// error object of a request it refuses. The caller got it as its own
// mistake: sent once, not counted, and a Router handed it back instead
// of trying its next route. It is now the 503 it is: sent again, and a
// Router whose first route keeps failing to load gets its answer from
// the next.
func TestLMStudioLoadFailureSentAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantOverloadSentAgain(t, "lmstudio-jit-load-failed-400", "qwen/qwen3-coder-30b", nil)
	})
}
