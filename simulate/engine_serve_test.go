package simulate_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace/simulate"
)

func serveEngine(t *testing.T, d simulate.Deployment) *simulate.Engine {
	t.Helper()
	e, err := simulate.NewEngine(d)
	if err != nil {
		t.Fatalf("NewEngine: %v", err)
	}
	return e
}

// The online driver must deliver every token exactly when the engine's
// schedule says, plus the RTT.
func TestOnlineFollowsEngineSchedule(t *testing.T) {
	const out = 20
	// The schedule, from a second engine run offline: "Tell me about
	// latency." is 22 bytes, ceil(22/4) + 4 + 3 = 13 prompt tokens.
	offline := serveEngine(t, simulate.Deployment{})
	offline.Add(0, &simulate.Request{ID: 1, PromptTokens: 13, OutputTokens: out})
	var want []time.Duration
	for {
		at, ok := offline.Next()
		if !ok {
			break
		}
		offline.AdvanceTo(at, func(e simulate.Emission) {
			for range e.Tokens {
				want = append(want, e.At)
			}
		})
	}
	synctest.Test(t, func(t *testing.T) {
		rtt := ms(8)
		ts := simulate.StartInMemory(t, simulate.WithModel("m", serveEngine(t, simulate.Deployment{})), simulate.WithRTT(rtt))
		got := chatStream(t, newClient(ts), chatParams("m", out))
		if got.err != nil {
			t.Fatalf("stream: %v", got.err)
		}
		if len(got.arrivals) != len(want) {
			t.Fatalf("chunks = %d, want %d", len(got.arrivals), len(want))
		}
		for i := range want {
			if got.arrivals[i] != want[i]+rtt {
				t.Errorf("chunk %d arrived at %v, want %v (engine %v + RTT)", i, got.arrivals[i], want[i]+rtt, want[i])
			}
		}
	})
}

func TestPrefixCacheReportsCachedTokens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", serveEngine(t, simulate.Deployment{})))
		c := newClient(ts)
		system := openai.SystemMessage(strings.Repeat("You are a careful assistant. ", 2000)) // 58000 bytes
		ask := func(q string) streamed {
			p := chatParams("m", 5)
			p.Messages = []openai.ChatCompletionMessageParamUnion{system, openai.UserMessage(q)}
			return chatStream(t, c, p)
		}
		cold, warm := ask("first question"), ask("second question")
		if cold.err != nil || warm.err != nil {
			t.Fatalf("streams: %v, %v", cold.err, warm.err)
		}
		if cold.usage.PromptTokensDetails.CachedTokens != 0 {
			t.Errorf("first request cached_tokens = %d, want 0", cold.usage.PromptTokensDetails.CachedTokens)
		}
		// The shared prefix is the system message: 58000/4 + 4 tokens,
		// rounded down to the engine's 16-token blocks.
		if got, want := warm.usage.PromptTokensDetails.CachedTokens, int64((58000/4+4)/16*16); got != want {
			t.Errorf("second request cached_tokens = %d, want %d", got, want)
		}
		if warm.arrivals[0]*5 > cold.arrivals[0] {
			t.Errorf("TTFT cached %v, uncached %v: want the cached one at least 5× faster", warm.arrivals[0], cold.arrivals[0])
		}
	})
}

func TestConversationTurnReusesThePreviousTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", serveEngine(t, simulate.Deployment{})))
		c := newClient(ts)
		msgs := []openai.ChatCompletionMessageParamUnion{openai.UserMessage(strings.Repeat("Tell me about latency. ", 400))} // 9200 bytes
		p := chatParams("m", 200)
		p.Messages = msgs
		first := chatStream(t, c, p)
		p.Messages = append(msgs, openai.AssistantMessage(first.text), openai.UserMessage("And throughput?"))
		next := chatStream(t, c, p)
		// Another reply in the history: only the first message is shared.
		p.Messages = append(msgs, openai.AssistantMessage("Something else."), openai.UserMessage("And throughput?"))
		other := chatStream(t, c, p)
		if first.err != nil || next.err != nil || other.err != nil {
			t.Fatalf("streams: %v, %v, %v", first.err, next.err, other.err)
		}
		// The first turn's prompt (9200/4 + 4 + 3 tokens) and its 200
		// output tokens, rounded down to 16-token blocks.
		if got, want := next.usage.PromptTokensDetails.CachedTokens, int64((9200/4+7+200)/16*16); got != want {
			t.Errorf("next turn cached_tokens = %d, want %d (the first turn's prompt and reply)", got, want)
		}
		if got, most := other.usage.PromptTokensDetails.CachedTokens, int64((9200/4+4)/16*16); got > most {
			t.Errorf("a turn after another, short reply: cached_tokens = %d, want at most %d (the first message)", got, most)
		}
	})
}

func TestCancelFreesTheSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", serveEngine(t, simulate.Deployment{MaxRunning: 1})))
		c := newClient(ts)
		ctx, cancel := context.WithCancel(context.Background())
		long := c.Chat.Completions.NewStreaming(ctx, chatParams("m", 100000))
		if !long.Next() {
			t.Fatalf("first stream: %v", long.Err())
		}
		second := make(chan streamed)
		go func() { second <- chatStream(t, c, chatParams("m", 3)) }()
		synctest.Wait()
		if s, _ := ts.Stats("m"); s.Running != 1 || s.Waiting != 1 {
			t.Fatalf("stats with one slot taken = %d running, %d waiting, want 1, 1", s.Running, s.Waiting)
		}
		cancelled := time.Now()
		cancel()
		long.Close()
		got := <-second
		if got.err != nil || len(got.arrivals) != 3 {
			t.Fatalf("second stream: %d chunks, %v, want 3 and no error", len(got.arrivals), got.err)
		}
		if wait := time.Since(cancelled); wait > time.Second {
			t.Errorf("second stream ended %v after the cancel, want it served at once", wait)
		}
		synctest.Wait()
		if s, _ := ts.Stats("m"); s.Running != 0 || s.Waiting != 0 {
			t.Errorf("stats after both = %d running, %d waiting, want 0, 0", s.Running, s.Waiting)
		}
	})
}

func TestCancelFixed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: ms(10), ITL: time.Second}))
		ctx, cancel := context.WithCancel(context.Background())
		c := newClient(ts)
		s := c.Chat.Completions.NewStreaming(ctx, chatParams("m", 1000))
		s.Next()
		synctest.Wait()
		if st, _ := ts.Stats("m"); st.Running != 1 {
			t.Fatalf("running = %d, want 1", st.Running)
		}
		cancel()
		s.Close()
		synctest.Wait()
		if st, _ := ts.Stats("m"); st.Running != 0 {
			t.Errorf("running after cancel = %d, want 0", st.Running)
		}
	})
}

func TestCloseEndsRunningStreams(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{ITL: time.Second}))
		c := newClient(ts)
		s := c.Chat.Completions.NewStreaming(context.Background(), chatParams("m", 1000))
		defer s.Close()
		if !s.Next() {
			t.Fatalf("first chunk: %v", s.Err())
		}
		ts.Close()
		for s.Next() {
		}
		if s.Err() == nil {
			t.Errorf("stream after Server.Close ended without error, want the connection dropped")
		}
		if _, ok := ts.Stats("m"); !ok {
			t.Errorf("Stats of a closed server's model: ok = false, want true (zero Stats)")
		}
	})
}
