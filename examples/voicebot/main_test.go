package main

import (
	"bytes"
	"fmt"
	"slices"
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

// degrading is a simulate.Scheduler whose every degradeEvery-th request
// (from the first) produces its first fast tokens at itl and the rest at
// slow: a primary that degrades to about 1 token a second after its first
// tokens. The others run at itl throughout.
type degrading struct {
	ttft, itl, slow time.Duration
	fast            int // tokens at itl before a degraded request slows
	degradeEvery    int
	n               int
	reqs            map[uint64]*degradingReq
}

type degradingReq struct {
	next     time.Duration
	sent     int
	total    int
	degraded bool
}

func (d *degrading) Add(now time.Duration, r *simulate.Request) {
	if d.reqs == nil {
		d.reqs = make(map[uint64]*degradingReq)
	}
	d.n++
	d.reqs[r.ID] = &degradingReq{next: now + d.ttft, total: max(r.OutputTokens, 1), degraded: d.n%d.degradeEvery == 1}
}

func (d *degrading) Cancel(_ time.Duration, id uint64) { delete(d.reqs, id) }

func (d *degrading) Next() (time.Duration, bool) {
	var at time.Duration
	ok := false
	for _, r := range d.reqs {
		if !ok || r.next < at {
			at, ok = r.next, true
		}
	}
	return at, ok
}

func (d *degrading) AdvanceTo(t time.Duration, emit func(simulate.Emission)) {
	for {
		var id uint64
		var due *degradingReq
		for i, r := range d.reqs {
			if r.next <= t && (due == nil || r.next < due.next || (r.next == due.next && i < id)) {
				id, due = i, r
			}
		}
		if due == nil {
			return
		}
		due.sent++
		e := simulate.Emission{ID: id, At: due.next, Tokens: 1, First: due.sent == 1, Done: due.sent == due.total}
		if e.Done {
			delete(d.reqs, id)
		} else if due.degraded && due.sent >= d.fast {
			due.next += d.slow
		} else {
			due.next += d.itl
		}
		emit(e)
	}
}

func (d *degrading) Stats() simulate.Stats { return simulate.Stats{Running: len(d.reqs)} }

// TestVoicebotGate measures the time to the first spoken sentence when
// every fifth reply of the large model degrades to 1 token a second after
// its first three tokens, with no policy for it, with a Gap budget and
// continuation on the small model, and with a Gap budget and the commit
// gate. Run:
//
//	(cd examples && go test -run TestVoicebotGate -v ./voicebot)
func TestVoicebotGate(t *testing.T) {
	short := []string{script[0], script[1], script[3], script[4]}
	var turns []string
	for range 25 {
		turns = append(turns, short...)
	}
	rows := []struct {
		name string
		gap  time.Duration
		cont bool
		gate bool
		got  []turn
	}{
		{name: "no policy for a stall (TTFT budget and hedge only)"},
		{name: "Gap 300 ms + Continue on the small model", gap: 300 * time.Millisecond, cont: true},
		{name: "Gap 300 ms + commit gate until the first sentence", gap: 300 * time.Millisecond, gate: true},
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| policy (%d turns, every 5th large reply at 1 token/s after 3 tokens) | p50 first sentence | p90 | p99 | max | turns whose reply is stitched from two models |\n|---|---|---|---|---|---|\n", len(turns))
	for i := range rows {
		row := &rows[i]
		synctest.Test(t, func(t *testing.T) {
			cfg := config{
				large: "large", small: "small", ttftBudget: 180 * time.Millisecond, hedgeAfter: 120 * time.Millisecond,
				tts: 120 * time.Millisecond, maxTokens: 48, turns: turns, gap: row.gap, cont: row.cont, gate: row.gate,
			}
			ts := simulate.StartInMemory(t, simulate.WithRTT(20*time.Millisecond),
				simulate.WithModel("large", &degrading{ttft: 80 * time.Millisecond, itl: 25 * time.Millisecond, slow: time.Second, fast: 3, degradeEvery: 5}),
				simulate.WithModel("small", &simulate.Fixed{TTFT: 60 * time.Millisecond, ITL: 15 * time.Millisecond}))
			var out bytes.Buffer
			got, err := run(t.Context(), &out, endpoint.Endpoint{BaseURL: ts.URL, HTTP: ts.Client, APIKey: "x"}, cfg)
			if err != nil {
				t.Fatalf("%s: run: %v\n%s", row.name, err, out.String())
			}
			row.got = got
		})
		var first []time.Duration
		mixed := 0
		for _, tr := range row.got {
			first = append(first, tr.firstSentence)
			// With Continue, a large reply that breaks after its first
			// words is carried on by the small model: the sentence spoken
			// is stitched from both.
			if row.cont && strings.HasPrefix(tr.attempts, "large breached") {
				mixed++
			}
		}
		slices.Sort(first)
		q := func(p float64) time.Duration { return first[min(int(p*float64(len(first))), len(first)-1)] }
		fmt.Fprintf(&b, "| %s | %v | %v | %v | %v | %d |\n", row.name, q(0.5).Round(time.Millisecond), q(0.9).Round(time.Millisecond),
			q(0.99).Round(time.Millisecond), first[len(first)-1].Round(time.Millisecond), mixed)
	}
	t.Logf("voice bot, time to the first spoken sentence:\n%s", b.String())
}

// TestVoicebotGoesOnAfterAFailedTurn checks that a turn that no model can
// answer (here the long notes, over a context of 2,048 tokens, which both
// models refuse with 400 as vLLM does) is reported in its line with the
// server's name for the error, and that the conversation goes on without
// it: the next turns are answered by the large model, and run reports
// the failure at the end.
func TestVoicebotGoesOnAfterAFailedTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := config{
			large: "llama-3.1-70b", small: "llama-3.2-3b",
			ttftBudget: 180 * time.Millisecond, hedgeAfter: 120 * time.Millisecond, tts: 120 * time.Millisecond,
			maxTokens: 48, turns: script,
		}
		var opts []simulate.Option
		for _, name := range []string{cfg.large, cfg.small} {
			m, err := simulate.LookupModel(name)
			if err != nil {
				t.Fatal(err)
			}
			m.Context = 2048
			e, err := simulate.NewEngine(simulate.Deployment{GPUs: 2, Model: m})
			if err != nil {
				t.Fatal(err)
			}
			opts = append(opts, simulate.WithModel(name, e))
		}
		ts := simulate.StartInMemory(t, opts...)
		var out bytes.Buffer
		turns, err := run(t.Context(), &out, endpoint.Endpoint{BaseURL: ts.URL, HTTP: ts.Client, APIKey: "x"}, cfg)
		if err == nil || err.Error() != "1 of 5 turns failed" {
			t.Fatalf("run: %v, want 1 of 5 turns failed\n%s", err, out.String())
		}
		if len(turns) != 4 {
			t.Fatalf("run returned %d turns, want the 4 answered\n%s", len(turns), out.String())
		}
		for i, tr := range turns {
			if tr.target != "large" || tr.reply == "" {
				t.Errorf("answered turn %d: %q answered %q, want large with a reply", i+1, tr.target, tr.reply)
			}
		}
		if !strings.Contains(out.String(), "3    failed: ") || !strings.Contains(out.String(), "invalid_request_error: OpenAI API error: 400") {
			t.Errorf("output does not report turn 3's failure by the server's name for it:\n%s", out.String())
		}
	})
}
