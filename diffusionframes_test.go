package tokenpace_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestDiffusionFramesValidated: a Router's Validator is given the text of
// a diffusion model's answer (Mercury's with "diffusing" set), the last of
// its refinement steps, not every step run together: each step holds the
// whole answer so far.
func TestDiffusionFramesValidated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := loadRecording(t, "conformance/inception-mercury-diffusing-frames-replace.jsonl")
		url, hc := serve(t, replay(rec))
		var validated []string
		p := tokenpace.Policy{Validator: func(text string) error {
			validated = append(validated, text)
			return nil
		}}
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), p, route("mercury-2"))
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewStreaming(context.Background(), chat("mercury-2", 256))
		for s.Next() {
		}
		_ = s.Close()
		const want = "The capital of France is Paris."
		if s.Err() != nil || len(validated) != 1 || validated[0] != want {
			t.Errorf("Err() = %v, validated %q; want nil, [%q]", s.Err(), validated, want)
		}
	})
}
