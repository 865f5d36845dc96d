package wire

import (
	"strings"
	"testing"
)

func TestLoadingNotes(t *testing.T) {
	note := func(text string) string { return `{"choices":[{"delta":{"reasoning_content":"` + text + `"}}]}` }
	const model = `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning_content":"think"}}]}`
	for _, tt := range []struct {
		name   string
		events []string
		skip   []bool
	}{
		{"llama-swap's notes, then the answer", []string{note(LoadingBanner), note(`\n`), note("llama-swap loading model: m"), note("."), model, note(".")},
			[]bool{true, true, true, true, false, false}},
		{"a first note with its line end (llama-swap of 2025)", []string{note(LoadingBanner + `\n`), model}, []bool{true, false}},
		{"no banner first: a server's own minimal chunks", []string{note("think"), note(LoadingBanner)}, []bool{false, false}},
		{"the answer at once", []string{model, note(LoadingBanner)}, []bool{false, false}},
		{"the shape with an index", []string{`{"choices":[{"index":0,"delta":{"reasoning_content":"` + LoadingBanner + `"}}]}`}, []bool{false}},
		{"not a string", []string{`{"choices":[{"delta":{"reasoning_content":null}}]}`, model}, []bool{false, false}},
		{"a string broken in two", []string{`{"choices":[{"delta":{"reasoning_content":"` + LoadingBanner + `"}}]},{"choices":[{"delta":{"reasoning_content":"x"}}]}`}, []bool{false}},
	} {
		var n LoadingNotes
		for i, ev := range tt.events {
			if got := n.Skip([]byte(ev)); got != tt.skip[i] {
				t.Errorf("%s: event %d: Skip = %v, want %v", tt.name, i, got, tt.skip[i])
			}
		}
	}
	n := NoLoadingNotes()
	if n.Skip([]byte(note(LoadingBanner))) {
		t.Error("NoLoadingNotes skipped a note")
	}
	if text, ok := LoadingNote([]byte(note(`Done! (2.26s)\n`))); !ok || !strings.HasPrefix(text, "Done!") || !strings.HasSuffix(text, "\n") {
		t.Errorf("LoadingNote = %q, %v; want the note's text", text, ok)
	}
}
