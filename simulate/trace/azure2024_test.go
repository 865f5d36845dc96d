package trace_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate/trace"
)

// The week-long Azure traces of 2024 (AzureLLMInferenceTrace_code_1week.csv
// and _conv_1week.csv, linked from AzureLLMInferenceDataset2024.md) give
// each TIMESTAMP with its UTC offset, with microseconds or with none
// (2024-05-12 00:00:00.001163+00:00 and 2024-05-12 00:00:00+00:00, as the
// dataset's own notebook says); the 2023 traces give none.
func TestReadAzure2024Offsets(t *testing.T) {
	in := "TIMESTAMP,ContextTokens,GeneratedTokens\n" +
		"2024-05-10 00:00:00.009930+00:00,2162,5\n" +
		"2024-05-10 00:00:01+00:00,2399,6\n" +
		"2024-05-10 02:00:01.5+02:00,76,15\n" + // the same instant as 00:00:01.5 UTC
		"2024-05-10 00:00:02.022314Z,2376,1\n"
	tr, err := trace.Read(strings.NewReader(in), "AzureLLMInferenceTrace_code_1week.csv", trace.Auto)
	if err != nil {
		t.Fatalf("Read = %v, want the trace", err)
	}
	want := []time.Duration{0, 990070 * time.Microsecond, 1490070 * time.Microsecond, 2012384 * time.Microsecond}
	if tr.Format != trace.Azure || len(tr.Requests) != len(want) {
		t.Fatalf("Read: format %v, %d requests, want azure, %d", tr.Format, len(tr.Requests), len(want))
	}
	for i, r := range tr.Requests {
		if r.At != want[i] {
			t.Errorf("request %d arrives at %v, want %v", i, r.At, want[i])
		}
	}
	if p := tr.Requests[2].PromptTokens; p != 76 {
		t.Errorf("request 2 has %d prompt tokens, want 76 (the +02:00 row)", p)
	}
}
