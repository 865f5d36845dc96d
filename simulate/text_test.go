package simulate_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace/simulate"
)

// reply returns the streamed text of one chat request to a fresh server.
func reply(t *testing.T, params openai.ChatCompletionNewParams, opts ...simulate.Option) streamed {
	t.Helper()
	var got streamed
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, append([]simulate.Option{simulate.WithModel("m", &simulate.Fixed{ITL: ms(1)})}, opts...)...)
		got = chatStream(t, newClient(ts), params)
		if got.err != nil {
			t.Fatalf("stream: %v", got.err)
		}
	})
	return got
}

func TestTextIsDeterministicForASeed(t *testing.T) {
	p := chatParams("m", 50)
	a := reply(t, p, simulate.WithSeed(1)).text
	b := reply(t, p, simulate.WithSeed(1)).text
	c := reply(t, p, simulate.WithSeed(2)).text
	if a != b {
		t.Errorf("seed 1 twice: %q and %q differ", a, b)
	}
	if a == c {
		t.Errorf("seeds 1 and 2 gave the same text %q", a)
	}
	p.Seed = openai.Int(99)
	d := reply(t, p, simulate.WithSeed(1)).text
	if d == a {
		t.Errorf("request seed 99 gave the same text as no request seed")
	}
	if !strings.Contains(a, ". ") {
		t.Errorf("text %q has no sentence end", a)
	}
}

func TestScriptedReplies(t *testing.T) {
	script := simulate.WithReply(func(r simulate.ReplyInfo) (string, bool) {
		if r.Prompt == "generate" {
			return "", false
		}
		return "You said: " + r.Prompt + ". Bye.", true
	})
	tests := []struct {
		prompt string
		max    int64
		stop   []string
		text   string
		finish string
		tokens int64
	}{
		{"hi", 100, nil, "You said: hi. Bye.", "stop", 4},
		{"hi", 2, nil, "You said:", "length", 2},
		{"hi", 100, []string{"Bye"}, "You said: hi. ", "stop", 4},
		{"hi", 100, []string{" said"}, "You", "stop", 1},
	}
	for _, tt := range tests {
		p := chatParams("m", tt.max)
		p.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage(tt.prompt)}
		if tt.stop != nil {
			p.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: tt.stop}
		}
		got := reply(t, p, script)
		if got.text != tt.text || got.finish != tt.finish || got.usage.CompletionTokens != tt.tokens {
			t.Errorf("reply(%q, max %d, stop %q) = %q, %s, %d tokens, want %q, %s, %d",
				tt.prompt, tt.max, tt.stop, got.text, got.finish, got.usage.CompletionTokens, tt.text, tt.finish, tt.tokens)
		}
	}
	p := chatParams("m", 7)
	p.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage("generate")}
	if got := reply(t, p, script); len(got.arrivals) != 7 || got.finish != "length" {
		t.Errorf("unscripted reply: %d chunks, finish %q, want 7, length", len(got.arrivals), got.finish)
	}
}

func TestOutputTokensDistribution(t *testing.T) {
	draw := simulate.WithOutputTokens(func(rng *rand.Rand) int { return 3 + rng.IntN(3) })
	got := reply(t, chatParams("m", 100), draw)
	if n := len(got.arrivals); n < 3 || n > 5 || got.finish != "stop" || got.usage.CompletionTokens != int64(n) {
		t.Errorf("drawn length: %d chunks, finish %q, usage %d, want 3..5, stop, the same count", n, got.finish, got.usage.CompletionTokens)
	}
	got = reply(t, chatParams("m", 2), draw)
	if len(got.arrivals) != 2 || got.finish != "length" {
		t.Errorf("max_tokens below the draw: %d chunks, finish %q, want 2, length", len(got.arrivals), got.finish)
	}
}

func TestRepliesSurviveJSONEscaping(t *testing.T) {
	const text = "He said \"hi\"\\ then\n\ttabbed\u2028 ünïcödé \x01 <b>&"
	got := reply(t, chatParams("m", 100), simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return text, true }))
	if got.text != text {
		t.Errorf("streamed text = %q, want %q", got.text, text)
	}
}

// Text made on demand and text held to look for a stop sequence are the
// same text.
func TestStopSequenceThatNeverMatches(t *testing.T) {
	p := chatParams("m", 40)
	plain := reply(t, p).text
	p.Stop = openai.ChatCompletionNewParamsStopUnion{OfString: openai.String("zzz")}
	if got := reply(t, p); got.text != plain || got.finish != "length" {
		t.Errorf("with an unmatched stop: %q, %s, want %q, length", got.text, got.finish, plain)
	}
}
