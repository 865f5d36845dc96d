package trace_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tokenpace/tokenpace/simulate/trace"
)

// FuzzRead: any input yields a trace or an error, never a panic, and a
// trace's requests are in arrival order with lengths in range.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"azure_conv_sample.csv", "burstgpt_sample.csv", "mooncake_conversation_sample.jsonl"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("0,10,5,sys\n1.5,20,7\n")
	f.Add(`{"timestamp": 1e300, "input_length": -1, "output_length": 1, "hash_ids": [1]}`)
	f.Fuzz(func(t *testing.T, in string) {
		tr, err := trace.Read(strings.NewReader(in), "f", trace.Auto)
		if err != nil {
			var le *trace.LineError
			if errors.As(err, &le) && !strings.HasPrefix(err.Error(), "f:") {
				t.Errorf("Read error %q does not name the file", err)
			}
			return
		}
		for i, r := range tr.Requests {
			if r.PromptTokens < 1 || r.OutputTokens < 1 || (i > 0 && r.At < tr.Requests[i-1].At) {
				t.Fatalf("Read: request %d = %+v, want lengths ≥ 1 in arrival order", i, r)
			}
		}
		_ = tr.Arrivals()
	})
}
