package trace_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate/trace"
)

func TestOpenReadsEachFormat(t *testing.T) {
	for _, tc := range []struct {
		path           string
		format         trace.Format
		n, failed      int
		last           time.Duration
		prompt, output int // the first request's
		block          int
	}{
		{"testdata/azure_conv_sample.csv", trace.Azure, 40, 0, 24*time.Second + 146296000, 374, 44, 0},
		{"testdata/burstgpt_sample.csv", trace.BurstGPT, 8, 2, 231 * time.Second, 472, 18, 0},
		{"testdata/mooncake_conversation_sample.jsonl", trace.Mooncake, 11, 0, 3 * time.Second, 6758, 500, 512},
	} {
		tr, err := trace.Open(tc.path, trace.Auto)
		if err != nil {
			t.Fatalf("Open(%s) = %v", tc.path, err)
		}
		r0 := tr.Requests[0]
		got := []any{tr.Format, len(tr.Requests), tr.Failed, tr.Duration(), r0.PromptTokens, r0.OutputTokens, tr.BlockTokens}
		want := []any{tc.format, tc.n, tc.failed, tc.last, tc.prompt, tc.output, tc.block}
		if !slices.Equal(got, want) {
			t.Errorf("Open(%s): format, requests, failed, duration, first prompt, first output, block = %v, want %v", tc.path, got, want)
		}
	}
}

func TestReadNamesTheMalformedLine(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		line     int
		want     string
	}{
		{"azure time", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.68,374,44\nyesterday,1,2\n", 3, "want a time such as"},
		{"azure tokens", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.68,-3,44\n", 2, "ContextTokens \"-3\""},
		{"azure short row", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.68,374\n", 2, "2 fields, want 3"},
		{"azure header", "TIMESTAMP,Context,GeneratedTokens\n", 1, "no column \"ContextTokens\""},
		{"burstgpt timestamp", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\nsoon,ChatGPT,1,2,3,API log\n", 2, "Timestamp \"soon\""},
		// A time past what a time.Duration holds came out negative (or
		// saturated): a request before every other.
		{"azure time centuries away", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.68,374,44\n1623-11-16 18:16:09.67,209,181\n", 3, "want within 1e+09 s"},
		{"burstgpt timestamp past a duration", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n0,ChatGPT,1,2,3,API log\n9.5e9,ChatGPT,1,2,3,API log\n", 3, "in [0, 1e9]"},
		{"mooncake json", `{"timestamp": 0, "input_length": 5, "output_length": 1}` + "\n{\"timestamp\": 1,\n", 2, "want an object such as"},
		{"mooncake missing", `{"timestamp": 0, "input_length": 5}` + "\n", 1, "missing timestamp, input_length or output_length"},
		{"mooncake blocks", `{"timestamp": 0, "input_length": 600, "output_length": 1, "hash_ids": [1, 2, 3]}` + "\n", 1, "3 hash_ids of 512 tokens"},
		{"csv", "0,10,5\n1,ten,5\n", 2, "prompt_tokens \"ten\""},
	} {
		_, err := trace.Read(strings.NewReader(tc.in), "t.trace", trace.Auto)
		var le *trace.LineError
		if !errors.As(err, &le) || le.Line != tc.line || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Read = %v, want a *LineError at line %d containing %q", tc.name, err, tc.line, tc.want)
			continue
		}
		if prefix := "t.trace:"; !strings.HasPrefix(err.Error(), prefix) {
			t.Errorf("%s: Read = %q, want it to start with %q", tc.name, err, prefix)
		}
	}
}

func TestReadRefusesAnEmptyTrace(t *testing.T) {
	for _, in := range []string{"", "TIMESTAMP,ContextTokens,GeneratedTokens\n", "\n\n"} {
		if _, err := trace.Read(strings.NewReader(in), "e", trace.Auto); err == nil {
			t.Errorf("Read(%q) = nil error, want one", in)
		}
	}
}

func TestWindowAndSpeedup(t *testing.T) {
	tr, err := trace.Open("testdata/azure_conv_sample.csv", trace.Azure)
	if err != nil {
		t.Fatal(err)
	}
	w, err := tr.Window(5*time.Second, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range w.Requests {
		if r.At < 0 || r.At >= 5*time.Second {
			t.Errorf("Window(5s, 5s) has a request at %v, want in [0, 5s)", r.At)
		}
	}
	if len(w.Requests) == 0 || len(w.Requests) >= len(tr.Requests) {
		t.Errorf("Window(5s, 5s) kept %d of %d requests, want some", len(w.Requests), len(tr.Requests))
	}
	s, err := tr.Speedup(4)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Duration(), (tr.Duration()+2)/4; got != want {
		t.Errorf("Speedup(4).Duration() = %v, want %v", got, want)
	}
	if _, err := tr.Window(time.Hour, 0); err == nil {
		t.Error("Window(1h, 0) of a 20 s trace = nil error, want one")
	}
	if _, err := tr.Speedup(0); err == nil {
		t.Error("Speedup(0) = nil error, want one")
	}
}

func TestSharedBlocksAndArrivals(t *testing.T) {
	in := `{"timestamp": 0, "input_length": 2000, "output_length": 10, "hash_ids": [0, 1, 2, 3]}
{"timestamp": 1000, "input_length": 1800, "output_length": 10, "hash_ids": [0, 1, 2, 5]}
{"timestamp": 2000, "input_length": 700, "output_length": 10, "hash_ids": [0, 7]}
{"timestamp": 3000, "input_length": 700, "output_length": 10, "hash_ids": [9, 8]}
`
	tr, err := trace.Read(strings.NewReader(in), "m", trace.Auto)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tr.SharedBlocks(), []int{3, 3, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("SharedBlocks() = %v, want %v", got, want)
	}
	a := tr.Arrivals()
	for i, want := range []struct {
		key    string
		tokens int
	}{{"blocks:0.1.2", 1536}, {"blocks:0.1.2", 1536}, {"blocks:0", 512}, {"", 0}} {
		if r := a[i].Request; r.PrefixKey != want.key || r.PrefixTokens != want.tokens {
			t.Errorf("Arrivals()[%d] prefix = %q, %d tokens, want %q, %d", i, r.PrefixKey, r.PrefixTokens, want.key, want.tokens)
		}
	}
}
