package tokenpace_test

import (
	"context"
	"testing"
	"testing/synctest"
)

// TestCLIProxyAPIFillInTheMiddle: CLIProxyAPI answers /v1/completions by
// asking its upstream's chat API, the prompt as a user message, the suffix
// dropped (recorded live, its build of August 2026 in front of the
// embedded simulator, streamed and not): a fill-in-the-middle request got
// a chat reply to its prompt, as if no code followed the cursor, with a
// nil error. The caller now gets a KindRequest refusal naming CLIProxyAPI
// and the suffix, after one request, told by the X-Cpa-Trace-Id header
// CLIProxyAPI sends; a completion without a suffix is its answer, as
// before.
func TestCLIProxyAPIFillInTheMiddle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stream := loadRecording(t, "cliproxyapi-2026-completions-suffix-stream.jsonl")
		whole := loadRecording(t, "cliproxyapi-2026-completions-suffix-nostream.jsonl")
		c, counts := serveFIM(t, stream, whole)
		ctx := context.Background()
		req := fim("tiny", "func add(a, b int) int {\n\treturn ", "\n}\n")
		checkRefusedByName(t, c, req, "CLIProxyAPI ignores suffix", "CLIProxyAPI")
		if n := counts.of("/v1/completions"); n != 2 || counts.of("/infill") != 0 {
			t.Errorf("requests %v; want 2 to /v1/completions, none sent again, none to /infill", counts)
		}

		plain := req
		plain.Suffix.Value = ""
		s := c.NewCompletionStreaming(ctx, plain)
		if text, _ := readCompletion(s, s.Timing().Start); s.Err() != nil || text != recordedCompletionText(t, stream) {
			t.Errorf("no suffix: text %q, err %v; want the answer as sent", text, s.Err())
		}
	})
}
