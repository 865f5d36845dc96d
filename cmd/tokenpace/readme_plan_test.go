package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// readmePlanExample returns the arguments of the README's worked plan
// example (the voice bot, "Planning a deployment") and the output the
// README prints for it.
func readmePlanExample(t *testing.T) (args []string, printed string) {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "\n## Planning a deployment\n")
	if !ok {
		t.Fatal(`README: no "## Planning a deployment" section`)
	}
	_, rest, ok = strings.Cut(rest, "```sh\n")
	if !ok {
		t.Fatal("README: the plan section has no sh block")
	}
	command, rest, ok := strings.Cut(rest, "```\n")
	if !ok {
		t.Fatal("README: the plan section's sh block is not closed")
	}
	_, rest, ok = strings.Cut(rest, "```\n")
	if !ok {
		t.Fatal("README: the plan section prints no output after its command")
	}
	printed, _, ok = strings.Cut(rest, "```\n")
	if !ok {
		t.Fatal("README: the plan section's output block is not closed")
	}
	fields := strings.Fields(strings.ReplaceAll(command, "\\\n", " "))
	const prefix = "go run ./cmd/tokenpace plan"
	if got := strings.Join(fields[:min(len(fields), 4)], " "); got != prefix {
		t.Fatalf("README's plan command starts %q, want %q", got, prefix)
	}
	return fields[4:], printed
}

// searchTime is the one figure of plan's text report that depends on the
// machine: how long the search took.
var searchTime = regexp.MustCompile(`configurations in [0-9.]+ s`)

// TestREADMEPlanExample runs the README's worked plan example and checks
// that the README prints what plan prints today, the search's duration
// aside: the pick, its figures, the search's counts and the ranked table.
// plan is deterministic, so a README left behind by a change to the
// latency model shows here.
func TestREADMEPlanExample(t *testing.T) {
	if raceEnabled {
		t.Skip("a full plan search; the figures do not depend on the race detector")
	}
	args, printed := readmePlanExample(t)
	code, out, stderr := planCmd(t, args...)
	if code != 0 {
		t.Fatalf("plan %q exit = %d, want 0 (stderr %q)", args, code, stderr)
	}
	got := searchTime.ReplaceAllString(out, "configurations in T s")
	want := searchTime.ReplaceAllString(printed, "configurations in T s")
	if got != want {
		t.Errorf("README's plan example prints\n%s\nplan %q prints\n%s", want, args, got)
	}
}
