package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tokenpace/tokenpace/simulate"
)

// Bare tokenpace lists every command with what it does and an example.
func TestUsageListsEveryCommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), nil, &stdout, &stderr); code != 2 {
		t.Errorf("exit = %d, want 2", code)
	}
	for _, cmd := range []string{"sim", "bench", "predict", "plan", "calibrate"} {
		if !strings.Contains(stderr.String(), "\n\t"+cmd+" ") || !strings.Contains(stderr.String(), "tokenpace "+cmd+" --") {
			t.Errorf("usage lacks the line or the example of %s:\n%s", cmd, stderr.String())
		}
	}
}

// A bad flag gets one line that says what was expected, not Go's message
// and every flag.
func TestBadFlagOneLine(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--slo-ttft", "300"}, `tokenpace bench: --slo-ttft "300": want a duration such as 300ms`},
		{[]string{"bench", "--requests", "many"}, `tokenpace bench: --requests "many": want a whole number`},
		{[]string{"sim", "--no-such-flag"}, "tokenpace sim: no flag --no-such-flag"},
		{[]string{"plan", "--rate"}, "tokenpace plan: --rate needs a value"},
		{[]string{"predict", "--prompt-tokens", "1k"}, `tokenpace predict: --prompt-tokens "1k": want a whole number`},
		{[]string{"calibrate", "--gpus", "two"}, `tokenpace calibrate: --gpus "two": want a whole number`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), tt.args, &stdout, &stderr); code != 2 {
			t.Errorf("%q: exit = %d, want 2", tt.args, code)
		}
		if got := stderr.String(); !strings.HasPrefix(got, tt.want) || strings.Count(got, "\n") != 1 {
			t.Errorf("%q: stderr = %q, want one line starting %q", tt.args, got, tt.want)
		}
	}
}

// Every command's -h, and help with the command's name, starts with its
// usage line and says what it does: -h on stderr, as the flag package
// prints it, help on stdout, as "tokenpace help" prints the usage, so
// that it can be paged.
func TestHelpHasADescription(t *testing.T) {
	for _, cmd := range commands {
		for _, args := range [][]string{{cmd, "-h"}, {"help", cmd}} {
			var stdout, stderr bytes.Buffer
			if code := run(t.Context(), args, &stdout, &stderr); code != 0 {
				t.Errorf("%q: exit = %d, want 0", args, code)
			}
			out, other := &stderr, &stdout
			if args[0] == "help" {
				out, other = &stdout, &stderr
			}
			lines := strings.SplitN(out.String(), "\n", 4)
			if len(lines) < 4 || !strings.HasPrefix(lines[0], "usage: tokenpace "+cmd) || lines[2] == "" || other.Len() > 0 {
				t.Errorf("%q begins %q (and %q on the other stream), want a usage line then a description", args, lines, other.String())
			}
		}
	}
}

// Help with a name that is no command says so and fails, rather than
// printing the usage with success.
func TestHelpUnknownCommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"help", "bnech"}, &stdout, &stderr)
	if code != 2 || stdout.Len() > 0 || !strings.Contains(stderr.String(), `unknown command "bnech"`) {
		t.Errorf("help bnech: exit %d, stdout %q, stderr %q; want 2, nothing, unknown command \"bnech\"", code, stdout.String(), stderr.String())
	}
}

// bench with a model the server does not serve says which ones it does.
func TestBenchWrongModelListsTheServed(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	sim := simulate.StartLoopback(t, simulate.WithModel("served-a", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}),
		simulate.WithModel("served-b", &simulate.Fixed{TTFT: time.Millisecond, ITL: time.Millisecond}))
	code, _, stderr := bench(t, t.Context(), "--base-url", sim.URL, "--model", "wrong", "--requests", "2", "--max-tokens", "2")
	if code != 1 {
		t.Errorf("exit = %d, want 1", code)
	}
	want := `does not list model "wrong"; it lists served-a, served-b (name one with --model)`
	if !strings.Contains(stderr, "no request completed: ") || !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q, want the served models listed: %q", stderr, want)
	}
}

// A model named without a tag is the ":latest" Ollama lists; no other
// name matches another.
func TestNamesOllamaLatest(t *testing.T) {
	for _, c := range []struct {
		id, model string
		want      bool
	}{
		{"tiny:latest", "tiny", true},
		{"tiny", "tiny", true},
		{"tiny:latest", "tiny:latest", true},
		{"tiny:7b", "tiny", false},
		{"tiny:latest", "tiny:7b", false},
		{"tinyx:latest", "tiny", false},
		{"org/tiny", "tiny", false},
	} {
		if got := names(c.id, c.model); got != c.want {
			t.Errorf("names(%q, %q) = %v, want %v", c.id, c.model, got, c.want)
		}
	}
}

// The usage, and each command's help above its flags, fit an 80-column
// terminal (a tab reaching the next multiple of 8), so that none wraps
// mid-word. The flags' own lines are the flag package's.
func TestHelpFitsEightyColumns(t *testing.T) {
	check := func(name, text string) {
		t.Helper()
		for line := range strings.Lines(text) {
			line = strings.TrimSuffix(line, "\n")
			if line == "Flags:" {
				return
			}
			if w := columns(line); w > 80 {
				t.Errorf("%s: a line %d columns wide, want at most 80: %q", name, w, line)
			}
		}
	}
	var stdout, stderr bytes.Buffer
	run(t.Context(), []string{"help"}, &stdout, &stderr)
	check("tokenpace help", stdout.String())
	for _, cmd := range commands {
		var stdout, stderr bytes.Buffer
		run(t.Context(), []string{"help", cmd}, &stdout, &stderr)
		check("tokenpace help "+cmd, stdout.String())
	}
}

// columns is how wide line shows on a terminal whose tab stops are 8
// apart, a rune a column.
func columns(line string) int {
	w := 0
	for _, r := range line {
		if r == '\t' {
			w += 8 - w%8
			continue
		}
		w++
	}
	return w
}
