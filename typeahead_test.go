package tokenpace_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// typeAheadClient returns a Client of a simulator whose model "m" answers
// words(1, 6) in tokens 20 ms apart after 100 ms, and a counter of the
// requests it received.
func typeAheadClient(t *testing.T) (*tokenpace.Client, *atomic.Int64) {
	t.Helper()
	var sent atomic.Int64
	m := &simulate.Fixed{TTFT: 100 * msec, ITL: 20 * msec, PerRequest: func(simulate.Request) (time.Duration, time.Duration) {
		sent.Add(1)
		return 0, 0
	}}
	return simClient(t, []simulate.Option{simulate.WithModel("m", m), replyWords(6)}), &sent
}

// readRest reads s to its end and returns its text.
func readRest(s *tokenpace.Stream[openai.Completion]) string {
	var b strings.Builder
	for s.Next() {
		if c := s.Current(); len(c.Choices) > 0 {
			b.WriteString(c.Choices[0].Text)
		}
	}
	s.Close()
	return b.String()
}

// TestTypeAheadReuse: the user types what the suggestion in flight
// started with; the new request is not sent, its stream hands over the
// rest of the suggestion at once, and the stream before it ends
// superseded. Typed text that diverges sends a new request.
func TestTypeAheadReuse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, sent := typeAheadClient(t)
		var latest tokenpace.Latest
		ctx := context.Background()
		full := words(1, 6)

		s1 := latest.NewCompletionStreaming(ctx, "k", fim("m", "code:", ""), client.NewCompletionStreaming)
		for s1.Next() && !strings.Contains(s1.Text(), "w2") {
		}
		// The user types the first four characters of the suggestion.
		typed := full[:4]
		s2 := latest.NewCompletionStreaming(ctx, "k", fim("m", "code:"+typed, ""), client.NewCompletionStreaming)
		for s1.Next() {
		}
		if err := s1.Err(); !errors.Is(err, tokenpace.ErrSuperseded) {
			t.Errorf("first stream: Err() = %v, want ErrSuperseded", err)
		}
		s1.Close()
		if got, want := readRest(s2), full[4:]; got != want {
			t.Errorf("reused stream: text %q, want %q", got, want)
		}
		if err := s2.Err(); err != nil {
			t.Errorf("reused stream: Err() = %v, want nil", err)
		}
		tm := s2.Timing()
		if tm.TTFT() != 0 || !tm.Sent.Equal(tm.Start) || tm.OutputChunks == 0 {
			t.Errorf("reused stream: TTFT %v, Sent-Start %v, %d chunks; want 0, 0 and some", tm.TTFT(), tm.Sent.Sub(tm.Start), tm.OutputChunks)
		}
		if got := sent.Load(); got != 1 {
			t.Errorf("requests sent = %d, want 1", got)
		}

		// After the end, the finished suggestion is still reused.
		s3 := latest.NewCompletionStreaming(ctx, "k", fim("m", "code:"+full[:7], ""), client.NewCompletionStreaming)
		if got, want := readRest(s3), full[7:]; got != want || s3.Err() != nil {
			t.Errorf("reuse after the end: text %q, %v, want %q, nil", got, s3.Err(), want)
		}
		// Typed text that diverges, or another parameter, sends a request.
		s4 := latest.NewCompletionStreaming(ctx, "k", fim("m", "code:w1 x", ""), client.NewCompletionStreaming)
		if got := readRest(s4); got != full || s4.Err() != nil {
			t.Errorf("diverged: text %q, %v, want %q, nil", got, s4.Err(), full)
		}
		if tm := s4.Timing(); tm.TTFT() != 100*msec {
			t.Errorf("diverged: TTFT %v, want 100ms (a request of its own)", tm.TTFT())
		}
		p := fim("m", "code:w1 xw1", "")
		p.MaxTokens = openai.Int(3)
		s5 := latest.NewCompletionStreaming(ctx, "k", p, client.NewCompletionStreaming)
		readRest(s5)
		if got := sent.Load(); got != 3 {
			t.Errorf("requests sent = %d, want 3", got)
		}
	})
}

// TestTypeAheadSupersedesInFlight: a request that diverges cancels the
// suggestion in flight; Begin under the same key does too.
func TestTypeAheadSupersedesInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, _ := typeAheadClient(t)
		var latest tokenpace.Latest
		ctx := context.Background()
		s1 := latest.NewCompletionStreaming(ctx, "k", fim("m", "a", ""), client.NewCompletionStreaming)
		s2 := latest.NewCompletionStreaming(ctx, "k", fim("m", "b", ""), client.NewCompletionStreaming)
		if s1.Next() || !errors.Is(s1.Err(), tokenpace.ErrSuperseded) {
			t.Errorf("first stream: Err() = %v, want ErrSuperseded before any token", s1.Err())
		}
		s1.Close()
		bctx, done := latest.Begin(ctx, "k")
		defer done()
		if s2.Next() || !errors.Is(s2.Err(), tokenpace.ErrSuperseded) {
			t.Errorf("second stream after Begin: Err() = %v, want ErrSuperseded", s2.Err())
		}
		s2.Close()
		if bctx.Err() != nil {
			t.Errorf("Begin's context ended: %v", bctx.Err())
		}
		synctest.Wait()
		if tm := s2.Timing(); !errors.Is(tm.Err, tokenpace.ErrSuperseded) {
			t.Errorf("second stream's Timing.Err = %v, want ErrSuperseded", tm.Err)
		}
	})
}

// TestTypeAheadStartPanics: a start function that panics or returns nil
// gives a stream that ends with an error; nothing crashes.
func TestTypeAheadStartPanics(t *testing.T) {
	var latest tokenpace.Latest
	ctx := context.Background()
	s := latest.NewCompletionStreaming(ctx, "k", fim("m", "a", ""),
		func(context.Context, openai.CompletionNewParams, ...option.RequestOption) *tokenpace.Stream[openai.Completion] {
			panic("boom")
		})
	if s.Next() {
		t.Errorf("Next() = true, want false")
	}
	checkKind(t, s.Err(), tokenpace.KindPanic)
	s.Close()
	s = latest.NewCompletionStreaming(ctx, "k", fim("m", "a", ""),
		func(context.Context, openai.CompletionNewParams, ...option.RequestOption) *tokenpace.Stream[openai.Completion] {
			return nil
		})
	if s.Next() || s.Err() == nil {
		t.Errorf("Next() after a nil start: Err() = %v, want an error", s.Err())
	}
	s.Close()
}
