package tokenpace_test

// Latest's newest request wins even while an older one waits for its
// response headers.

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// completionStart is how Latest.NewCompletionStreaming starts a request.
type completionStart = func(context.Context, openai.CompletionNewParams, ...option.RequestOption) *tokenpace.Stream[openai.Completion]

// beginSlow starts, on a goroutine of its own, a completion under key "k"
// whose response headers come 300 ms late, and returns where its stream
// will come, 50 ms later, when the tests' newer request begins.
func beginSlow(latest *tokenpace.Latest, start completionStart) <-chan *tokenpace.Stream[openai.Completion] {
	older := make(chan *tokenpace.Stream[openai.Completion], 1)
	slow := option.WithHeader(simulate.FaultHeader, "slow-headers;for=300ms")
	go func() {
		older <- latest.NewCompletionStreaming(context.Background(), "k", fim("m", "a", ""), start, slow)
	}()
	time.Sleep(50 * msec)
	return older
}

// TestLatestTypeAheadSlowStartLatestWins: a completion whose response
// headers come late (a server that sends them with its first token, or a
// slow proxy) is begun first; a newer keystroke's completion starts and
// is answered meanwhile. Latest wins: the newer must survive and the older
// end ErrSuperseded. The older, when its headers came, displaced the
// newer: the newest lost.
func TestLatestTypeAheadSlowStartLatestWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, _ := typeAheadClient(t)
		var latest tokenpace.Latest
		older := beginSlow(&latest, client.NewCompletionStreaming)
		// The user typed "x": a diverging prompt, a request of its own.
		newer := latest.NewCompletionStreaming(context.Background(), "k", fim("m", "ax", ""), client.NewCompletionStreaming)
		s1 := <-older
		text := readRest(newer)
		if err := newer.Err(); err != nil {
			t.Errorf("newer request: Err() = %v, text %q; want nil and the whole suggestion (latest wins)", err, text)
		}
		readRest(s1)
		if err := s1.Err(); !errors.Is(err, tokenpace.ErrSuperseded) {
			t.Errorf("older request: Err() = %v, want ErrSuperseded", err)
		}
	})
}

// TestLatestTypeAheadSlowStartThenBegin: same, the newer request made with
// Begin.
func TestLatestTypeAheadSlowStartThenBegin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, _ := typeAheadClient(t)
		var latest tokenpace.Latest
		older := beginSlow(&latest, client.NewCompletionStreaming)
		bctx, done := latest.Begin(context.Background(), "k")
		defer done()
		s1 := <-older
		readRest(s1)
		if err := context.Cause(bctx); err != nil {
			t.Errorf("newer Begin's context: cause %v, want live (latest wins); older stream Err %v", err, s1.Err())
		}
	})
}

// TestLatestTypeAheadInFlightDuringStart: at most one request in flight per
// key: a newer keystroke must cancel the older request even while the
// older waits for its response headers (start has not returned yet).
func TestLatestTypeAheadInFlightDuringStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, _ := typeAheadClient(t)
		var latest tokenpace.Latest
		ctxs := make(chan context.Context, 2)
		start := func(c context.Context, p openai.CompletionNewParams, o ...option.RequestOption) *tokenpace.Stream[openai.Completion] {
			ctxs <- c
			return client.NewCompletionStreaming(c, p, o...)
		}
		older := beginSlow(&latest, start)
		firstCtx := <-ctxs
		newer := make(chan *tokenpace.Stream[openai.Completion])
		go func() {
			newer <- latest.NewCompletionStreaming(context.Background(), "k", fim("m", "ab", ""), start, option.WithHeader(simulate.FaultHeader, "slow-headers;for=300ms"))
		}()
		time.Sleep(50 * msec)
		if firstCtx.Err() == nil {
			t.Errorf("100 ms in, with a newer request under the key, the older request still runs (two in flight)")
		}
		readRest(<-older)
		readRest(<-newer)
	})
}

// TestLatestContextDoneBefore: a request whose context is done before the
// call sends nothing, as openai-go sends nothing: Latest sent it (and ran
// it to its end, in the background, to be reused), and the completion
// already in flight under the key is kept.
func TestLatestContextDoneBefore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, sent := typeAheadClient(t)
		var latest tokenpace.Latest
		first := latest.NewCompletionStreaming(context.Background(), "k", fim("m", "a", ""), client.NewCompletionStreaming)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s := latest.NewCompletionStreaming(ctx, "k", fim("m", "ab", ""), client.NewCompletionStreaming)
		if text := readRest(s); text != "" || !errors.Is(s.Err(), context.Canceled) {
			t.Errorf("done context: text %q, Err() = %v; want none, context.Canceled", text, s.Err())
		}
		if text := readRest(first); text == "" || first.Err() != nil {
			t.Errorf("the completion in flight: text %q, Err() = %v; want its answer", text, first.Err())
		}
		synctest.Wait()
		if n := sent.Load(); n != 1 {
			t.Errorf("requests sent = %d, want 1 (the first)", n)
		}
	})
}
