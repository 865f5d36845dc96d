package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace/examples/internal/endpoint"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestAutocompleteLatestWins types at exactly 5 characters a second against
// servers with a fixed time to first token, so every count is known.
func TestAutocompleteLatestWins(t *testing.T) {
	tests := []struct {
		model                          string
		ttft                           time.Duration
		inTime, late, superseded, fail int
	}{
		// 100 ms: every suggestion appears before the next keystroke.
		{"fast", 100 * time.Millisecond, 10, 0, 0, 0},
		// 170 ms: before the next keystroke (200 ms) but past 150 ms.
		{"medium", 170 * time.Millisecond, 0, 10, 0, 0},
		// 300 ms: each keystroke cancels the previous request; only the
		// last one, with no keystroke after it, shows (late).
		{"slow", 300 * time.Millisecond, 0, 1, 9, 0},
	}
	synctest.Test(t, func(t *testing.T) {
		var opts []simulate.Option
		var models []string
		for _, tt := range tests {
			opts = append(opts, simulate.WithModel(tt.model, &simulate.Fixed{TTFT: tt.ttft, ITL: 5 * time.Millisecond}))
			models = append(models, tt.model)
		}
		var last simulate.ReplyInfo
		opts = append(opts, simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) {
			if ri.Model == "slow" {
				last = ri
			}
			return "", false
		}))
		ts := simulate.StartInMemory(t, opts...)
		cfg := config{models: models, deadline: 150 * time.Millisecond, cps: 5, jitter: 0, maxTokens: 8, text: "return nil"}
		var out bytes.Buffer
		got, err := run(t.Context(), &out, endpoint.Endpoint{BaseURL: ts.URL, HTTP: ts.Client, APIKey: "x"}, cfg)
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		for i, tt := range tests {
			s := got[i]
			if s.model != tt.model || s.keystrokes != 10 || s.inTime != tt.inTime || s.late != tt.late || s.superseded != tt.superseded || s.failed != tt.fail {
				t.Errorf("%s: keystrokes %d, in time %d, late %d, superseded %d, failed %d; want 10, %d, %d, %d, %d",
					s.model, s.keystrokes, s.inTime, s.late, s.superseded, s.failed, tt.inTime, tt.late, tt.superseded, tt.fail)
			}
			for _, d := range s.shown {
				if d != tt.ttft {
					t.Errorf("%s: a suggestion took %v, want exactly %v on virtual time", s.model, d, tt.ttft)
				}
			}
		}
		if !strings.HasSuffix(last.Prompt, recentCode+"return nil") || last.Suffix != belowCursor {
			t.Errorf("last request: prompt ends %q, suffix %q; want the code up to the cursor and %q",
				last.Prompt[max(0, len(last.Prompt)-20):], last.Suffix, belowCursor)
		}
		if !strings.Contains(out.String(), "slow") || !strings.Contains(out.String(), "superseded") {
			t.Errorf("output lacks the per-model table:\n%s", out.String())
		}
	})
}

// TestAutocompleteDefaultModels runs the default scenario, shortened, on the
// hardware model: the 1B model keeps up, and the counts add up.
func TestAutocompleteDefaultModels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := config{models: []string{"llama-3.2-1b", "llama-3.1-8b"}, deadline: 150 * time.Millisecond,
			cps: 5, jitter: 0.6, seed: 1, maxTokens: 16, text: typed[:12]}
		opts, err := simOptions(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ts := simulate.StartInMemory(t, opts...)
		var out bytes.Buffer
		got, err := run(t.Context(), &out, endpoint.Endpoint{BaseURL: ts.URL, HTTP: ts.Client, APIKey: "x"}, cfg)
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		for _, s := range got {
			if sum := s.inTime + s.late + s.superseded + s.failed; sum != s.keystrokes || s.keystrokes != 12 {
				t.Errorf("%s: in time + late + superseded + failed = %d, keystrokes %d, want both 12", s.model, sum, s.keystrokes)
			}
			if s.failed != 0 {
				t.Errorf("%s: %d failed, want 0", s.model, s.failed)
			}
		}
		if small := got[0]; small.inTime != small.keystrokes {
			t.Errorf("%s: %d of %d in time, want all:\n%s", small.model, small.inTime, small.keystrokes, out.String())
		}
	})
}

// TestAutocompleteTypeAhead types the default text on the hardware model,
// with half the suggestions what the typist types next, without and with
// type-ahead reuse, and logs both tables. Run:
//
//	(cd examples && go test -run TestAutocompleteTypeAhead -v ./autocomplete)
func TestAutocompleteTypeAhead(t *testing.T) {
	var rows [2][]stats
	var outs [2]bytes.Buffer
	for i, reuse := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			cfg := config{models: []string{"llama-3.2-1b", "llama-3.1-8b"}, deadline: 150 * time.Millisecond,
				cps: 5, jitter: 0.6, seed: 1, maxTokens: 16, text: typed, accept: 0.5, typeAhead: reuse}
			opts, err := simOptions(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ts := simulate.StartInMemory(t, opts...)
			rows[i], err = run(t.Context(), &outs[i], endpoint.Endpoint{BaseURL: ts.URL, HTTP: ts.Client, APIKey: "x"}, cfg)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
		})
	}
	t.Logf("without type-ahead reuse:\n%s\nwith type-ahead reuse:\n%s", outs[0].String(), outs[1].String())
	for m := range rows[0] {
		off, on := rows[0][m], rows[1][m]
		if off.requests != off.keystrokes || on.requests >= off.requests {
			t.Errorf("%s: requests %d of %d keystrokes without reuse, %d with; want all, then fewer", off.model, off.requests, off.keystrokes, on.requests)
		}
		if p, q := quantile(on.shown, 0.5), quantile(off.shown, 0.5); p >= q {
			t.Errorf("%s: p50 time to ghost text %v with reuse, want below %v without", off.model, p, q)
		}
	}
}

// TestAutocompleteSaysWhyItFailed: a model whose every request fails
// (here one the server does not serve) is counted failed, and the output
// says what the first failure was, so that a server that cannot do
// fill-in-the-middle is seen for what it is.
func TestAutocompleteSaysWhyItFailed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("fast", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 5 * time.Millisecond}))
		cfg := config{models: []string{"fast", "missing"}, deadline: 150 * time.Millisecond, cps: 5, maxTokens: 8, text: "return nil"}
		var out bytes.Buffer
		got, err := run(t.Context(), &out, endpoint.Endpoint{BaseURL: ts.URL, HTTP: ts.Client, APIKey: "x"}, cfg)
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		if got[0].failed != 0 || got[1].failed != 10 || got[1].firstErr == nil {
			t.Fatalf("failed %d and %d (first error %v); want 0 and 10", got[0].failed, got[1].failed, got[1].firstErr)
		}
		if want := "missing: the first failed request ended with: " + got[1].firstErr.Error(); !strings.Contains(out.String(), want) || strings.Contains(out.String(), "fast: the first") {
			t.Errorf("output lacks %q for the failing model alone:\n%s", want, out.String())
		}
	})
}

// --models takes names around commas with spaces trimmed, and refuses an
// empty one.
func TestParseModels(t *testing.T) {
	tests := []struct {
		in   string
		want []string // nil: an error
	}{
		{"a,b", []string{"a", "b"}},
		{"a, b", []string{"a", "b"}},
		{" llama-3.2-1b ,\tllama-3.1-8b ", []string{"llama-3.2-1b", "llama-3.1-8b"}},
		{"a", []string{"a"}},
		{"", nil},
		{" ", nil},
		{"a,,b", nil},
		{"a, ", nil},
	}
	for _, tt := range tests {
		got, err := parseModels(tt.in)
		if tt.want == nil {
			if err == nil {
				t.Errorf("parseModels(%q) = %q, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("parseModels(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestAutocompleteHeadersLate types against a server whose response
// headers come only with its answer (Ollama's come with the first token;
// here a buffering proxy holds them to the end): a keystroke must not wait
// for the request of the one before, which it supersedes. Waiting for
// them, the typist took 5.15 s for what takes 2.135 s: no request was
// ever superseded, and every suggestion came late.
func TestAutocompleteHeadersLate(t *testing.T) {
	for _, typeAhead := range []bool{false, true} {
		t.Run(map[bool]string{false: "begin", true: "type-ahead"}[typeAhead], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ts := simulate.StartInMemory(t, simulate.WithBuffering(true),
					simulate.WithModel("slow", &simulate.Fixed{TTFT: 300 * time.Millisecond, ITL: 5 * time.Millisecond}))
				cfg := config{models: []string{"slow"}, deadline: 150 * time.Millisecond, cps: 5, maxTokens: 8, text: "return nil", typeAhead: typeAhead}
				began := time.Now()
				got, err := run(t.Context(), io.Discard, endpoint.Endpoint{BaseURL: ts.URL, HTTP: ts.Client, APIKey: "x"}, cfg)
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				s := got[0]
				if s.keystrokes != 10 || s.superseded != 9 || s.late != 1 || s.inTime != 0 || s.failed != 0 {
					t.Errorf("type-ahead %v: keystrokes %d, in time %d, late %d, superseded %d, failed %d; want 10, 0, 1, 9, 0",
						typeAhead, s.keystrokes, s.inTime, s.late, s.superseded, s.failed)
				}
				if took, want := time.Since(began), 9*200*time.Millisecond+335*time.Millisecond; took != want {
					t.Errorf("type-ahead %v: the run took %v, want %v: 9 gaps between keystrokes, then the last answer", typeAhead, took, want)
				}
			})
		})
	}
}

// TestAutocompleteFailsWhenNothingShowed: against an endpoint where every
// request fails, run says why and returns an error (the command exits 1),
// rather than a table of failures and success.
func TestAutocompleteFailsWhenNothingShowed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("fast", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 5 * time.Millisecond}))
		cfg := config{models: []string{"missing", "absent"}, deadline: 150 * time.Millisecond, cps: 5, maxTokens: 8, text: "return nil"}
		var out bytes.Buffer
		got, err := run(t.Context(), &out, endpoint.Endpoint{BaseURL: ts.URL, HTTP: ts.Client, APIKey: "x"}, cfg)
		if err == nil || got[0].firstErr == nil || !errors.Is(err, got[0].firstErr) {
			t.Errorf("run = %v, want an error wrapping the first failure %v\n%s", err, got[0].firstErr, out.String())
		}
	})
}

// TestAutocompleteInterruptedPrintsWhatItMeasured cancels the run after
// the first keystrokes (Ctrl-C): each model's row still shows the
// keystrokes typed and the suggestions counted, and run returns the one
// cancellation.
func TestAutocompleteInterruptedPrintsWhatItMeasured(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("fast", &simulate.Fixed{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond}))
		cfg := config{models: []string{"fast"}, deadline: 150 * time.Millisecond, cps: 5, maxTokens: 8, text: "return nil"}
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(900*time.Millisecond, cancel)
		var out bytes.Buffer
		got, err := run(ctx, &out, endpoint.Endpoint{BaseURL: ts.URL, HTTP: ts.Client, APIKey: "x"}, cfg)
		if !errors.Is(err, context.Canceled) || strings.Count(err.Error(), "canceled") != 1 {
			t.Errorf("run = %v, want the cancellation once", err)
		}
		if got[0].keystrokes != 5 || got[0].inTime != 5 {
			t.Errorf("keystrokes %d, in time %d; want 5 and 5 in the first 900 ms at 5/s", got[0].keystrokes, got[0].inTime)
		}
		if !regexp.MustCompile(`(?m)^fast +5 +5 +5 `).MatchString(out.String()) {
			t.Errorf("output lacks the row of what was measured before the interruption:\n%s", out.String())
		}
	})
}
