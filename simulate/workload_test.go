package simulate_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

func TestWorkloadArrivals(t *testing.T) {
	w := simulate.Workload{Rate: 4, Process: simulate.ConstantProcess, Requests: 9, Prompt: simulate.TokenDist{Mean: 100}, Output: simulate.TokenDist{Mean: 20},
		PrefixTokens: 60, Prefixes: 2}
	a := arrivals(t, w)
	for i, x := range a {
		want := time.Duration(i) * 250 * time.Millisecond
		if x.At != want || x.Request.ID != uint64(i+1) || x.Request.PromptTokens != 100 || x.Request.OutputTokens != 20 || x.Request.PrefixTokens != 60 {
			t.Errorf("arrival %d = %+v, want at %v, ID %d, 100/20 tokens, 60-token prefix", i, x, want, i+1)
		}
	}
	if a[0].Request.PrefixKey == a[1].Request.PrefixKey || a[0].Request.PrefixKey != a[2].Request.PrefixKey {
		t.Errorf("prefix keys %q %q %q, want two prefixes in turn", a[0].Request.PrefixKey, a[1].Request.PrefixKey, a[2].Request.PrefixKey)
	}

	// Log-normal lengths: the sample mean near Mean, and spread.
	w = simulate.Workload{Rate: 10, Requests: 20000, Prompt: simulate.TokenDist{Mean: 500, CV: 1}, Output: simulate.TokenDist{Mean: 200}, Seed: 7}
	a = arrivals(t, w)
	var sum, lo, hi int
	for _, x := range a {
		sum += x.Request.PromptTokens
		if x.Request.PromptTokens < 250 {
			lo++
		}
		if x.Request.PromptTokens > 1000 {
			hi++
		}
	}
	if mean := float64(sum) / float64(len(a)); mean < 470 || mean > 530 {
		t.Errorf("mean prompt of 20000 draws with mean 500, CV 1 = %.1f, want within 6%%", mean)
	}
	if lo == 0 || hi == 0 {
		t.Errorf("draws below 250: %d, above 1000: %d; want both", lo, hi)
	}
	if b := arrivals(t, w); b[len(b)-1] != a[len(a)-1] {
		t.Error("the same Workload gave different arrivals")
	}
	// Poisson at 10/s over 20000 requests: about 2000 s.
	if last := a[len(a)-1].At; last < 1900*time.Second || last > 2100*time.Second {
		t.Errorf("last Poisson arrival = %v, want about 2000s", last)
	}

	for _, bad := range []simulate.Workload{{Requests: -1}, {Rate: -1, Prompt: simulate.TokenDist{CV: -1}}, {PrefixTokens: -5}, {Process: 7}} {
		if _, err := bad.Arrivals(); !errors.Is(err, simulate.ErrInvalid) {
			t.Errorf("Workload%+v.Arrivals() error = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestReadTrace(t *testing.T) {
	a, err := simulate.ReadTrace(strings.NewReader("arrival_s,prompt_tokens,output_tokens,prefix_id\n# comment\n0.5,100,10,sys\n0,200,20\n\n1.25, 300, 30, \n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []simulate.Arrival{
		{At: 500 * time.Millisecond, Request: simulate.Request{ID: 1, PromptTokens: 100, OutputTokens: 10, PrefixKey: "sys", PrefixTokens: 50}},
		{At: 0, Request: simulate.Request{ID: 2, PromptTokens: 200, OutputTokens: 20}},
		{At: 1250 * time.Millisecond, Request: simulate.Request{ID: 3, PromptTokens: 300, OutputTokens: 30}},
	}
	if len(a) != len(want) {
		t.Fatalf("ReadTrace = %d arrivals, want %d", len(a), len(want))
	}
	for i := range want {
		if a[i] != want[i] {
			t.Errorf("arrival %d = %+v, want %+v", i, a[i], want[i])
		}
	}
	for _, bad := range []string{
		"", "arrival_s,prompt_tokens,output_tokens\n", "0,100\n", "0,100,10,a,b\n", "-1,100,10\n", "x,100,10\n0,1,1\n0,y,1\n",
		"0,0,10\n", "0,10,99999999999\n", "NaN,10,10\n", "0,\"10,10\n",
		"garbage line\n1,2,3\n", "foo,bar,baz\n0,10,3\n", // not a header: they were skipped in silence
	} {
		if _, err := simulate.ReadTrace(strings.NewReader(bad)); !errors.Is(err, simulate.ErrInvalid) {
			t.Errorf("ReadTrace(%q) error = %v, want ErrInvalid", bad, err)
		}
	}
}

// TestReadTraceHeader checks which first lines ReadTrace skips as the
// header: the columns' names, in order and in any case, after comments
// and blank lines too; a line of other names is malformed.
func TestReadTraceHeader(t *testing.T) {
	tests := []struct {
		in   string
		want int // arrivals; -1 for ErrInvalid
	}{
		{"arrival_s,prompt_tokens,output_tokens\n0,10,3\n", 1},
		{"ARRIVAL_S, Prompt_Tokens, Output_Tokens, Prefix_ID\n0,10,3,a\n1,10,3,a\n", 2},
		{"# exported trace\n\narrival_s,prompt_tokens,output_tokens\n0,10,3\n", 1},
		{"time,prompt,output\n0,10,3\n", -1},
		{"arrival_s,output_tokens,prompt_tokens\n0,10,3\n", -1},
	}
	for _, tt := range tests {
		a, err := simulate.ReadTrace(strings.NewReader(tt.in))
		got := len(a)
		if errors.Is(err, simulate.ErrInvalid) {
			got = -1
		} else if err != nil {
			t.Fatalf("ReadTrace(%q) error = %v", tt.in, err)
		}
		if got != tt.want {
			t.Errorf("ReadTrace(%q) = %d arrivals (-1: ErrInvalid; err %v), want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestGammaArrivalsHaveTheRateAndBurstiness(t *testing.T) {
	for _, cv := range []float64{0.5, 1, 3} {
		a, err := simulate.Workload{Rate: 10, Process: simulate.GammaProcess, Burstiness: cv, Requests: 50000, Seed: 7}.Arrivals()
		if err != nil {
			t.Fatal(err)
		}
		var sum, sum2 float64
		for i := 1; i < len(a); i++ {
			g := (a[i].At - a[i-1].At).Seconds()
			sum += g
			sum2 += g * g
		}
		n := float64(len(a) - 1)
		mean := sum / n
		got := math.Sqrt(sum2/n-mean*mean) / mean
		if math.Abs(mean-0.1) > 0.005 || math.Abs(got-cv) > 0.1*cv {
			t.Errorf("gamma arrivals at 10/s, CV %v: mean gap %.4f s, CV %.3f; want 0.1 s, %v", cv, mean, got, cv)
		}
	}
}

// arrivals draws w's arrivals or fails the test.
func arrivals(t testing.TB, w simulate.Workload) []simulate.Arrival {
	t.Helper()
	a, err := w.Arrivals()
	if err != nil {
		t.Fatal(err)
	}
	return a
}
