package simulate_test

import (
	"bufio"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// With the precise timer, a stream over loopback is complete and no chunk
// arrives before its schedule (request sent + TTFT + k·ITL): an alarm that
// went off early, or a stale expiry taken for a due event, would send one
// too soon.
func TestPreciseTimerLoopback(t *testing.T) {
	const (
		ttft, itl = 10 * time.Millisecond, 5 * time.Millisecond
		tokens    = 10
		streams   = 4
	)
	ts := simulate.StartLoopback(t,
		simulate.WithModel("m", &simulate.Fixed{TTFT: ttft, ITL: itl}),
		simulate.WithPreciseTimer(true))
	body := `{"model":"m","stream":true,"max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
	errs := make(chan string, streams)
	for range streams {
		go func() {
			sent := time.Now()
			res, err := ts.Client.Post(ts.URL+"chat/completions", "application/json", strings.NewReader(body))
			if err != nil {
				errs <- err.Error()
				return
			}
			defer res.Body.Close()
			sc := bufio.NewScanner(res.Body)
			k, done := 0, false
			for sc.Scan() {
				line := sc.Text()
				if line == "data: [DONE]" {
					done = true
				}
				if !strings.Contains(line, `"content":"`) || strings.Contains(line, `"content":""`) {
					continue
				}
				if got, want := time.Since(sent), ttft+time.Duration(k)*itl; got < want {
					errs <- fmt.Sprintf("chunk %d arrived after %v, before its schedule %v", k, got, want)
					return
				}
				k++
			}
			if k != tokens || !done {
				errs <- fmt.Sprintf("stream: %d chunks, [DONE] %t, want %d chunks and [DONE]", k, done, tokens)
				return
			}
			errs <- ""
		}()
	}
	for range streams {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}

func TestPreciseTimerServerClose(t *testing.T) {
	s, err := simulate.NewServer(simulate.WithPreciseTimer(true),
		simulate.WithModel("a", &simulate.Fixed{}), simulate.WithModel("b", &simulate.Fixed{}))
	if err != nil {
		t.Fatalf("NewServer(WithPreciseTimer(true)) error = %v, want nil", err)
	}
	// goleak (TestMain) checks that Close ends the timers' goroutines.
	if err := s.Close(); err != nil {
		t.Errorf("Close() = %v, want nil", err)
	}
}
