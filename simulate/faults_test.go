package simulate_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/simulate"
)

func TestStatusFaults(t *testing.T) {
	tests := []struct {
		header     string
		status     int
		retryAfter string
	}{
		{"429", 429, "1"},
		{"429;for=2500ms", 429, "3"},
		{"500", 500, ""},
		{"503", 503, ""},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100)}), simulate.WithRTT(ms(10)))
				x := post(t, ts, "/v1/chat/completions", fmt.Sprintf(streamBody, 3), map[string]string{simulate.FaultHeader: tt.header})
				if x.status != tt.status {
					t.Errorf("status = %d, want %d", x.status, tt.status)
				}
				if got := x.header.Get("Retry-After"); got != tt.retryAfter {
					t.Errorf("Retry-After = %q, want %q", got, tt.retryAfter)
				}
				if x.headersAt != ms(10) {
					t.Errorf("error arrived at %v, want %v (one RTT)", x.headersAt, ms(10))
				}
				if !strings.Contains(x.body, `"error":{"message":"simulated fault`) {
					t.Errorf("body = %s, want an OpenAI-style error", x.body)
				}
				if s, _ := ts.Stats("m"); s.PromptTokens != 0 {
					t.Errorf("engine admitted %d prompt tokens, want 0: a refused request never reaches it", s.PromptTokens)
				}
			})
		})
	}
}

func TestStatusFaultWithOpenAIRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Requests 0 and 1 get 429 with Retry-After 2 s; openai-go waits
		// and retries, and request 2 succeeds.
		ts := simulate.StartInMemory(t,
			simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100), ITL: ms(10)}),
			simulate.WithFaults(simulate.Faults{Script: func(i uint64) simulate.Fault {
				if i < 2 {
					return simulate.Fault{Kind: simulate.FaultRateLimit, For: 2 * time.Second}
				}
				return simulate.Fault{}
			}}))
		c := openai.NewClient(option.WithBaseURL(ts.URL), option.WithHTTPClient(ts.Client), option.WithAPIKey("x"), option.WithMaxRetries(2))
		got := chatStream(t, c, chatParams("m", 2))
		if got.err != nil {
			t.Fatalf("stream error: %v", got.err)
		}
		if want := 4*time.Second + ms(100); got.arrivals[0] != want {
			t.Errorf("first token at %v, want %v (two Retry-After waits, then TTFT)", got.arrivals[0], want)
		}
	})
}

func TestMidStreamFaults(t *testing.T) {
	tests := []struct {
		header   string
		arrivals []time.Duration // of the output-bearing chunks
		wantErr  bool
	}{
		{"none", []time.Duration{ms(100), ms(110), ms(120), ms(130)}, false},
		{"reset;after=2", []time.Duration{ms(100), ms(110)}, true},
		{"reset", nil, true},
		{"stall;for=1s;after=2", []time.Duration{ms(100), ms(110), ms(1120), ms(1120)}, false},
		{"stall;for=15ms;after=1", []time.Duration{ms(100), ms(125), ms(125), ms(130)}, false},
		{"malformed;after=1", []time.Duration{ms(100)}, true},
		{"slow-headers;for=500ms", []time.Duration{ms(500), ms(500), ms(500), ms(500)}, false},
		{"slow-headers;for=105ms", []time.Duration{ms(105), ms(110), ms(120), ms(130)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100), ITL: ms(10)}))
				got := chatStream(t, newClient(ts), chatParams("m", 4), option.WithHeader(simulate.FaultHeader, tt.header))
				if (got.err != nil) != tt.wantErr {
					t.Errorf("stream error = %v, want error %v", got.err, tt.wantErr)
				}
				if fmt.Sprint(got.arrivals) != fmt.Sprint(tt.arrivals) {
					t.Errorf("arrivals = %v, want %v", got.arrivals, tt.arrivals)
				}
				synctest.Wait()
				if s, _ := ts.Stats("m"); s.Running != 0 {
					t.Errorf("running after the stream = %d, want 0", s.Running)
				}
			})
		})
	}
}

func TestResetIsUnexpectedEOF(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100), ITL: ms(10)}))
		x := post(t, ts, "/v1/chat/completions", fmt.Sprintf(streamBody, 5), map[string]string{simulate.FaultHeader: "reset;after=1"})
		if !errors.Is(x.err, io.ErrUnexpectedEOF) {
			t.Errorf("body error = %v, want unexpected EOF", x.err)
		}
	})
}

func TestBadFaultHeader(t *testing.T) {
	for _, h := range []string{"418", "stall;for=soon", "reset;after=-1", "reset;after", "stall;when=1s",
		"429;for=9223369200s", "stall;for=2h", "oversized;size=999999999", "oversized;size=-1"} {
		t.Run(h, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{}))
				x := post(t, ts, "/v1/chat/completions", fmt.Sprintf(streamBody, 1), map[string]string{simulate.FaultHeader: h})
				if x.status != http.StatusBadRequest || !strings.Contains(x.body, "simulate: ") {
					t.Errorf("status, body = %d, %s, want 400 naming the problem", x.status, x.body)
				}
			})
		})
	}
}

// The fault header is honoured only by a server that accepts it: the test
// constructors do unless told not to.
func TestFaultHeaderIsOptIn(t *testing.T) {
	tests := []struct {
		name string
		opts []simulate.Option
		want int
	}{
		{"test server default", nil, http.StatusInternalServerError},
		{"turned off", []simulate.Option{simulate.WithFaultHeader(false)}, http.StatusOK},
		{"turned on", []simulate.Option{simulate.WithFaultHeader(true)}, http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ts := simulate.StartInMemory(t, append([]simulate.Option{simulate.WithModel("m", &simulate.Fixed{})}, tt.opts...)...)
				x := post(t, ts, "/v1/chat/completions", fmt.Sprintf(streamBody, 1), map[string]string{simulate.FaultHeader: "500"})
				if x.status != tt.want {
					t.Errorf("status with %s: 500 = %d, want %d", simulate.FaultHeader, x.status, tt.want)
				}
			})
		})
	}
	// A server made by NewServer ignores the header.
	s, err := simulate.NewServer(simulate.WithModel("m", &simulate.Fixed{}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`))
	r.Header.Set(simulate.FaultHeader, "429;for=9223369200s")
	s.ServeHTTP(w, r)
	if w.Code != http.StatusOK || w.Header().Get("Retry-After") != "" {
		t.Errorf("NewServer() with %s: status %d, Retry-After %q, want 200 and none", simulate.FaultHeader, w.Code, w.Header().Get("Retry-After"))
	}
}

// statuses returns the status of n sequential requests to a server with
// faults f.
func statuses(t *testing.T, f simulate.Faults, n int) []int {
	t.Helper()
	var out []int
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{}), simulate.WithFaults(f))
		for range n {
			out = append(out, post(t, ts, "/v1/chat/completions", fmt.Sprintf(streamBody, 1), nil).status)
		}
	})
	return out
}

func TestFaultRatesAreDeterministic(t *testing.T) {
	f := simulate.Faults{RateLimit: 0.3, Unavailable: 0.2, Seed: 7}
	a, b := statuses(t, f, 200), statuses(t, f, 200)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("two runs with seed 7 differ:\n%v\n%v", a, b)
	}
	count := map[int]int{}
	for _, s := range a {
		count[s]++
	}
	// 200 draws at 30% and 20%: a count outside these bounds has odds
	// below one in a million.
	if count[429] < 30 || count[429] > 95 || count[503] < 15 || count[503] > 70 || count[200]+count[429]+count[503] != 200 {
		t.Errorf("status counts = %v, want about 60×429, 40×503, 100×200", count)
	}
	c := statuses(t, simulate.Faults{RateLimit: 0.3, Unavailable: 0.2, Seed: 8}, 200)
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Errorf("seeds 7 and 8 drew the same faults")
	}
}

func TestFaultsValidate(t *testing.T) {
	for _, f := range []simulate.Faults{
		{RateLimit: -0.1},
		{ServerError: 1.5},
		{RateLimit: 0.6, Reset: 0.6},
		{After: -1},
		{Stall: 1, For: 2 * time.Hour},
		{Oversized: 1, Size: simulate.MaxOversizedBytes + 1},
		{Truncated: 0.6, WrongContentType: 0.6},
	} {
		if _, err := simulate.NewServer(simulate.WithFaults(f)); err == nil {
			t.Errorf("NewServer(WithFaults(%+v)) error = nil, want an error", f)
		}
	}
}

func TestParseFault(t *testing.T) {
	tests := []struct {
		in   string
		want simulate.Fault
	}{
		{"429", simulate.Fault{Kind: simulate.FaultRateLimit}},
		{"stall;for=2s;after=5", simulate.Fault{Kind: simulate.FaultStall, For: 2 * time.Second, After: 5}},
		{" reset ; after=3", simulate.Fault{Kind: simulate.FaultReset, After: 3}},
		{"slow-headers;for=1ms", simulate.Fault{Kind: simulate.FaultSlowHeaders, For: time.Millisecond}},
		{"oversized;after=2;size=100", simulate.Fault{Kind: simulate.FaultOversized, After: 2, Size: 100}},
		{"truncated;after=1", simulate.Fault{Kind: simulate.FaultTruncated, After: 1}},
		{"reset-before-headers", simulate.Fault{Kind: simulate.FaultResetBeforeHeaders}},
		{"wrong-content-type", simulate.Fault{Kind: simulate.FaultWrongContentType}},
		{"none", simulate.Fault{}},
	}
	for _, tt := range tests {
		got, err := simulate.ParseFault(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseFault(%q) = %+v, %v, want %+v", tt.in, got, err, tt.want)
		}
	}
	if got := simulate.FaultMalformed.String(); got != "malformed" {
		t.Errorf("FaultMalformed.String() = %q, want malformed", got)
	}
}

// A non-streaming response is held by a stall (from the second token's
// time, 110 ms, for 1 s) and cut in half by a malformed fault.
func TestMidStreamFaultNonStreaming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100), ITL: ms(10)}))
		c := newClient(ts)
		start := time.Now()
		_, err := c.Chat.Completions.New(context.Background(), wholeChatParams("m", 3), option.WithHeader(simulate.FaultHeader, "stall;for=1s;after=1"))
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if got, want := time.Since(start), ms(1110); got != want {
			t.Errorf("stalled response took %v, want %v", got, want)
		}
		if _, err := c.Chat.Completions.New(context.Background(), wholeChatParams("m", 3), option.WithHeader(simulate.FaultHeader, "malformed")); err == nil {
			t.Errorf("malformed response: error = nil, want a decoding error")
		}
	})
}
