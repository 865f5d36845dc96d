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
)

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
		ctx := context.Background()
		slow := option.WithHeader("X-Tokenpace-Fault", "slow-headers;for=300ms")
		older := make(chan *tokenpace.Stream[openai.Completion])
		go func() {
			older <- latest.NewCompletionStreaming(ctx, "k", fim("m", "a", ""), client.NewCompletionStreaming, slow)
		}()
		time.Sleep(50 * msec)
		// The user typed "x": a diverging prompt, a request of its own.
		newer := latest.NewCompletionStreaming(ctx, "k", fim("m", "ax", ""), client.NewCompletionStreaming)
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
		ctx := context.Background()
		slow := option.WithHeader("X-Tokenpace-Fault", "slow-headers;for=300ms")
		older := make(chan *tokenpace.Stream[openai.Completion])
		go func() {
			older <- latest.NewCompletionStreaming(ctx, "k", fim("m", "a", ""), client.NewCompletionStreaming, slow)
		}()
		time.Sleep(50 * msec)
		bctx, done := latest.Begin(ctx, "k")
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
		ctx := context.Background()
		slow := option.WithHeader("X-Tokenpace-Fault", "slow-headers;for=300ms")
		ctxs := make(chan context.Context, 2)
		start := func(c context.Context, p openai.CompletionNewParams, o ...option.RequestOption) *tokenpace.Stream[openai.Completion] {
			ctxs <- c
			return client.NewCompletionStreaming(c, p, o...)
		}
		older := make(chan *tokenpace.Stream[openai.Completion])
		go func() { older <- latest.NewCompletionStreaming(ctx, "k", fim("m", "a", ""), start, slow) }()
		firstCtx := <-ctxs
		time.Sleep(50 * msec)
		newer := make(chan *tokenpace.Stream[openai.Completion])
		go func() { newer <- latest.NewCompletionStreaming(ctx, "k", fim("m", "ab", ""), start, slow) }()
		time.Sleep(50 * msec)
		if firstCtx.Err() == nil {
			t.Errorf("100 ms in, with a newer request under the key, the older request still runs (two in flight)")
		}
		readRest(<-older)
		readRest(<-newer)
	})
}
