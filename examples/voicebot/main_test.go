package main

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace/examples/internal/endpoint"
	"github.com/tokenpace/tokenpace/simulate"
)

func TestVoicebotFallsBackToTheSmallModel(t *testing.T) {
	long := script[2]
	tests := []struct {
		name        string
		hedgeAfter  time.Duration
		wantSlow    string        // attempts of the turn with the long prompt
		wantMinTTFT time.Duration // its TTFT is at least this
	}{
		{"hedge", 120 * time.Millisecond, "large hedge_lost, small won", 120 * time.Millisecond},
		{"fallback at the budget", 0, "large breached, small won", 180 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := config{
					large: "llama-3.1-70b", small: "llama-3.2-3b",
					ttftBudget: 180 * time.Millisecond, hedgeAfter: tt.hedgeAfter, tts: 120 * time.Millisecond,
					maxTokens: 48, turns: []string{script[0], long},
				}
				opts, err := simOptions(cfg)
				if err != nil {
					t.Fatal(err)
				}
				ts := simulate.StartInMemory(t, opts...)
				var out bytes.Buffer
				turns, err := run(t.Context(), &out, endpoint.Endpoint{BaseURL: ts.URL, HTTP: ts.Client, APIKey: "x"}, cfg)
				if err != nil {
					t.Fatalf("run: %v\n%s", err, out.String())
				}
				if len(turns) != 2 {
					t.Fatalf("run returned %d turns, want 2", len(turns))
				}
				short, slow := turns[0], turns[1]
				if short.target != "large" || short.attempts != "large won" {
					t.Errorf("short turn answered by %q (%s), want large alone", short.target, short.attempts)
				}
				if short.ttft >= cfg.ttftBudget {
					t.Errorf("short turn TTFT = %v, want under the budget %v", short.ttft, cfg.ttftBudget)
				}
				if slow.target != "small" || slow.attempts != tt.wantSlow {
					t.Errorf("long turn answered by %q (%s), want small (%s)", slow.target, slow.attempts, tt.wantSlow)
				}
				if slow.ttft < tt.wantMinTTFT {
					t.Errorf("long turn TTFT = %v, want at least %v: the small model starts only then", slow.ttft, tt.wantMinTTFT)
				}
				for i, tr := range turns {
					if tr.firstSentence < tr.ttft {
						t.Errorf("turn %d: first sentence at %v, before the first token at %v", i+1, tr.firstSentence, tr.ttft)
					}
					if got := tr.firstAudio - tr.firstSentence; got != cfg.tts {
						t.Errorf("turn %d: first audio - first sentence = %v, want the TTS time %v", i+1, got, cfg.tts)
					}
					if !strings.Contains(tr.reply, ".") {
						t.Errorf("turn %d: reply %q holds no sentence", i+1, tr.reply)
					}
				}
				if !strings.Contains(out.String(), tt.wantSlow) {
					t.Errorf("output lacks %q:\n%s", tt.wantSlow, out.String())
				}
			})
		})
	}
}

func TestFirstSentence(t *testing.T) {
	tests := []struct {
		text   string
		want   string
		wantOK bool
	}{
		{"Hello there. How", "Hello there.", true},
		{" Sure! Lisbon", "Sure!", true},
		{"Is it? Yes", "Is it?", true},
		{"Version 1.2 is", "", false},
		{"No end yet.", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := firstSentence(tt.text)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("firstSentence(%q) = %q, %v, want %q, %v", tt.text, got, ok, tt.want, tt.wantOK)
		}
	}
}
