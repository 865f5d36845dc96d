package simulate_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// drain runs s to the end and returns its emissions.
func drain(s simulate.Scheduler) []simulate.Emission {
	var out []simulate.Emission
	for {
		at, ok := s.Next()
		if !ok {
			return out
		}
		s.AdvanceTo(at, func(e simulate.Emission) { out = append(out, e) })
	}
}

func TestFixedSchedule(t *testing.T) {
	f := &simulate.Fixed{TTFT: ms(100), ITL: ms(10), PerRequest: func(r simulate.Request) (time.Duration, time.Duration) {
		if r.ID == 2 {
			return ms(5), 0 // faster first token, default ITL
		}
		return 0, 0
	}}
	f.Add(0, &simulate.Request{ID: 1, PromptTokens: 7, OutputTokens: 3})
	f.Add(ms(50), &simulate.Request{ID: 2, OutputTokens: 2})
	if s := f.Stats(); s.Running != 2 || s.PromptTokens != 7 {
		t.Errorf("Stats = %+v, want 2 running, 7 prompt tokens", s)
	}
	got := drain(f)
	want := []simulate.Emission{
		{ID: 2, At: ms(55), Tokens: 1, First: true},
		{ID: 2, At: ms(65), Tokens: 1, Done: true},
		{ID: 1, At: ms(100), Tokens: 1, First: true},
		{ID: 1, At: ms(110), Tokens: 1},
		{ID: 1, At: ms(120), Tokens: 1, Done: true},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("emissions = %v\nwant %v", got, want)
	}
	if s := f.Stats(); s.Running != 0 || s.GeneratedTotal != 5 {
		t.Errorf("Stats after = %+v, want 0 running, 5 generated", s)
	}
}

func TestFixedZeroITLEmitsAllAtOnce(t *testing.T) {
	var f simulate.Fixed
	f.Add(ms(3), &simulate.Request{ID: 9, OutputTokens: 4})
	got := drain(&f)
	want := []simulate.Emission{{ID: 9, At: ms(3), Tokens: 4, First: true, Done: true}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("emissions = %v, want %v", got, want)
	}
}

func TestFixedCancel(t *testing.T) {
	f := &simulate.Fixed{ITL: ms(1)}
	f.Add(0, &simulate.Request{ID: 1, OutputTokens: 5})
	f.Add(0, &simulate.Request{ID: 2, OutputTokens: 2})
	f.AdvanceTo(0, func(simulate.Emission) {})
	f.Cancel(ms(1), 1)
	f.Cancel(ms(1), 42) // unknown: ignored
	got := drain(f)
	if len(got) != 1 || got[0].ID != 2 || !got[0].Done {
		t.Errorf("emissions after cancelling 1 = %v, want request 2's last", got)
	}
	if s := f.Stats(); s.Running != 0 {
		t.Errorf("running = %d, want 0", s.Running)
	}
}

// A slow first attempt and a fast second one, picked by request id, as a
// hedging test needs.
func TestFixedPerRequestByID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: ms(50), ITL: ms(10),
			PerRequest: func(r simulate.Request) (time.Duration, time.Duration) {
				if r.ID == 1 {
					return 5 * time.Second, 0
				}
				return 0, 0
			}}))
		c := newClient(ts)
		first, second := chatStream(t, c, chatParams("m", 1)), chatStream(t, c, chatParams("m", 1))
		if first.arrivals[0] != 5*time.Second || second.arrivals[0] != ms(50) {
			t.Errorf("TTFT of requests 1 and 2 = %v, %v, want 5s, 50ms", first.arrivals[0], second.arrivals[0])
		}
	})
}
