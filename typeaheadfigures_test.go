package tokenpace_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// readSlowly reads s to its end, away for pause after each event, as a
// caller that renders every chunk, and returns the text it read.
func readSlowly(s *tokenpace.Stream[openai.Completion], pause time.Duration) string {
	var text string
	for s.Next() {
		if ch := s.Current().Choices; len(ch) > 0 {
			text += ch[0].Text
		}
		time.Sleep(pause)
	}
	return text
}

// TestTypeAheadFiguresOfASlowReader: a caller of Latest.NewCompletionStreaming
// that reads slowly waited for the completion until its end arrived, not
// until it read it. The completion (words(1, 6), 100 ms then 20 ms a token)
// ends at 200 ms; the caller, away 100 ms after each event, reads that
// end after 600 ms.
func TestTypeAheadFiguresOfASlowReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, _ := typeAheadClient(t)
		var latest tokenpace.Latest
		start := time.Now()
		s := latest.NewCompletionStreaming(context.Background(), "k", fim("m", "code:", ""), client.NewCompletionStreaming)
		if got, want := readSlowly(s, 100*msec), words(1, 6); got != want || s.Err() != nil {
			t.Fatalf("text %q, Err() %v; want %q, nil", got, s.Err(), want)
		}
		if read := time.Since(start); read < 600*msec {
			t.Fatalf("the caller read the end after %v, want at least 600ms", read)
		}
		tm := s.Timing()
		if got, want := tm.End.Sub(start), 200*msec; got != want {
			t.Errorf("End = %v after the call, want %v (the completion's end arrived then)", got, want)
		}
		if got, want := tm.E2E(), 200*msec; got != want {
			t.Errorf("E2E() = %v, want %v", got, want)
		}
		if got, want := tm.TTFT(), 100*msec; got != want {
			t.Errorf("TTFT() = %v, want %v", got, want)
		}
		s.Close()
	})
}

// TestTypeAheadFiguresOfAReusedCompletion: the stream that reuses a
// completion counts what it handed its caller. The completion's tokens
// arrive at 100, 120, …, 200 ms; at 145 ms the user has typed "w1 w"
// (words(1, 6)[:4]), and the new stream hands "2" and " w3" at once,
// then " w4", " w5", " w6" at 160, 180 and 200 ms: five tokens, the
// first at 145 ms, 55 ms for the four after it.
func TestTypeAheadFiguresOfAReusedCompletion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, _ := typeAheadClient(t)
		var latest tokenpace.Latest
		ctx := context.Background()
		s1 := latest.NewCompletionStreaming(ctx, "k", fim("m", "code:", ""), client.NewCompletionStreaming)
		defer s1.Close()
		time.Sleep(145 * msec)
		start := time.Now()
		s2 := latest.NewCompletionStreaming(ctx, "k", fim("m", "code:"+words(1, 6)[:4], ""), client.NewCompletionStreaming)
		if got, want := readRest(s2), words(1, 6)[4:]; got != want || s2.Err() != nil {
			t.Fatalf("text %q, Err() %v; want %q, nil", got, s2.Err(), want)
		}
		tm := s2.Timing()
		if got, want := tm.OutputChunks, 5; got != want {
			t.Fatalf("OutputChunks = %d, want %d", got, want)
		}
		if got, want := tm.OutputTokens, 5; got != want {
			t.Errorf("OutputTokens = %d, want %d (the tokens this stream handed over)", got, want)
		}
		if got, want := tm.TPOT(), 55*msec/4; got != want {
			t.Errorf("TPOT() = %v, want %v", got, want)
		}
		if got, want := tm.E2E(), 55*msec; got != want || !tm.Sent.Equal(start) {
			t.Errorf("E2E() = %v from %v, want %v from the call", got, tm.Sent.Sub(start), want)
		}
	})
}

// TestTypeAheadFiguresOfASupersededStream: a stream that a newer request
// superseded ended then, whenever its caller comes back to read it, and
// its Timing stays what it was at that end while the completion runs on
// (for the stream that reuses it). The caller reads the first token at
// 100 ms and is away for 150 ms; the stream is superseded at 145 ms; the
// completion it was reading ends at 200 ms.
func TestTypeAheadFiguresOfASupersededStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, _ := typeAheadClient(t)
		var latest tokenpace.Latest
		ctx := context.Background()
		start := time.Now()
		s1 := latest.NewCompletionStreaming(ctx, "k", fim("m", "code:", ""), client.NewCompletionStreaming)
		newer := make(chan *tokenpace.Stream[openai.Completion], 1)
		go func() {
			time.Sleep(145 * msec)
			newer <- latest.NewCompletionStreaming(ctx, "k", fim("m", "code:"+words(1, 6)[:4], ""), client.NewCompletionStreaming)
		}()
		if got, want := readSlowly(s1, 150*msec), "w1"; got != want {
			t.Fatalf("text %q, want %q", got, want)
		}
		if err := s1.Err(); !errors.Is(err, tokenpace.ErrSuperseded) {
			t.Fatalf("Err() = %v, want ErrSuperseded", err)
		}
		ended := *s1.Timing()
		if got, want := ended.End.Sub(start), 145*msec; got != want {
			t.Errorf("End = %v after the call, want %v (superseded then)", got, want)
		}
		if ended.OutputChunks != 1 || ended.OutputTokens != 1 || ended.UsageReported {
			t.Errorf("OutputChunks %d, OutputTokens %d, UsageReported %v; want 1, 1, false (one token handed over)",
				ended.OutputChunks, ended.OutputTokens, ended.UsageReported)
		}
		readRest(<-newer)
		later := s1.Timing()
		if later.End != ended.End || later.OutputTokens != ended.OutputTokens || later.UsageReported != ended.UsageReported ||
			len(later.HTTP) != len(ended.HTTP) || later.FinishReason != ended.FinishReason {
			t.Errorf("Timing changed after the stream ended: End %v → %v, OutputTokens %d → %d, UsageReported %v → %v, FinishReason %q → %q",
				ended.End.Sub(start), later.End.Sub(start), ended.OutputTokens, later.OutputTokens,
				ended.UsageReported, later.UsageReported, ended.FinishReason, later.FinishReason)
		}
		s1.Close()
	})
}
