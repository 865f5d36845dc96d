package simulate

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestGenerateShape(t *testing.T) {
	tokens := generate(rand.New(rand.NewPCG(1, 2)), 200)
	if len(tokens) != 200 {
		t.Fatalf("len(generate(200)) = %d, want 200", len(tokens))
	}
	text := strings.Join(tokens, "")
	if strings.HasPrefix(text, " ") || !strings.HasSuffix(text, ".") {
		t.Errorf("text = %q, want no leading space and a final full stop", text)
	}
	sentence := strings.Index(text, ". ")
	line := strings.Index(text, ".\n")
	if sentence < 0 || line < 0 || line < sentence {
		t.Errorf("text = %q, want a sentence end before the first line break", text)
	}
	for i, tok := range tokens[1:] {
		if !strings.HasPrefix(tok, " ") && !strings.HasPrefix(tok, "\n") {
			t.Errorf("token %d = %q, want a leading space or line break", i+1, tok)
		}
	}
	again := generate(rand.New(rand.NewPCG(1, 2)), 200)
	if !slices.Equal(tokens, again) {
		t.Errorf("generate is not deterministic for a seed")
	}
}

func TestSplitTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"Hello there, friend.", []string{"Hello", " there,", " friend."}},
		{"  lead\n\npara end ", []string{"  lead", "\n\npara", " end", " "}},
		{"héllo wörld", []string{"héllo", " wörld"}},
	}
	for _, tt := range tests {
		got := splitTokens(tt.in)
		if !slices.Equal(got, tt.want) {
			t.Errorf("splitTokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Join(got, "") != tt.in {
			t.Errorf("splitTokens(%q) does not join back", tt.in)
		}
	}
}

func TestCutAtStop(t *testing.T) {
	tokens := []string{"The", " quick", " brown", " fox."}
	tests := []struct {
		stop []string
		want []string
		ok   bool
	}{
		{nil, tokens, false},
		{[]string{"zebra"}, tokens, false},
		{[]string{"brown"}, []string{"The", " quick", " "}, true},
		{[]string{"k b", "fox"}, []string{"The", " quic"}, true},
		{[]string{"The"}, nil, true},
		{[]string{""}, tokens, false},
	}
	for _, tt := range tests {
		got, ok := cutAtStop(tokens, tt.stop)
		if !slices.Equal(got, tt.want) || ok != tt.ok {
			t.Errorf("cutAtStop(%q) = %q, %v, want %q, %v", tt.stop, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPromptEstimates(t *testing.T) {
	msgs := []chatMessage{{Role: "system", text: "12345678"}, {Role: "user", text: "123"}}
	p := chatPrompt(msgs)
	// (8/4 + 4) + (ceil(3/4) + 4) + 3
	if p.tokens != 14 || p.prefixTokens != 6 || p.prefixKey == "" {
		t.Errorf("chatPrompt = %+v, want 14 tokens, a prefix of 6", p)
	}
	other := chatPrompt([]chatMessage{{Role: "system", text: "12345678"}, {Role: "user", text: "something else"}})
	if other.prefixKey != p.prefixKey {
		t.Errorf("same history, different last message: prefix keys %q, %q differ", p.prefixKey, other.prefixKey)
	}
	if chatPrompt(msgs[1:]).prefixKey != "" {
		t.Errorf("a single message has a prefix key, want none")
	}
	if q := textPrompt(""); q.tokens != 1 {
		t.Errorf("textPrompt(\"\").tokens = %d, want 1", q.tokens)
	}
	if q := textPrompt("123456789"); q.tokens != 3 {
		t.Errorf("textPrompt(9 bytes).tokens = %d, want 3", q.tokens)
	}
}

func TestReplyTextTake(t *testing.T) {
	held := heldText(generate(rand.New(rand.NewPCG(3, 4)), 10))
	lazy := generatedText(rand.New(rand.NewPCG(3, 4)), 10)
	for _, k := range []int{1, 3, 0, 2, 9} {
		a, b := held.take(k), lazy.take(k)
		if a != b {
			t.Errorf("take(%d): held %q, generated %q, want equal", k, a, b)
		}
	}
	if held.pos != 10 || lazy.pos != 10 || held.take(1) != "" {
		t.Errorf("after 15 tokens asked of 10: pos %d, %d, want 10 and nothing more", held.pos, lazy.pos)
	}
}

// TestGeneratorTokens checks the generator's token table against the
// straightforward construction of each token: separator, word capitalised
// at a sentence start, full stop at a sentence end.
func TestGeneratorTokens(t *testing.T) {
	const n = 500
	g := newGenerator(rand.New(rand.NewPCG(7, 9)), n)
	rng := rand.New(rand.NewPCG(7, 9))
	left, sentenceLeft, sentences := n, 6+rng.IntN(9), 0
	sep, capital := "", true
	for k := range n {
		w := vocabulary[rng.IntN(len(vocabulary))]
		if capital {
			w = strings.ToUpper(w[:1]) + w[1:]
			capital = false
		}
		left--
		sentenceLeft--
		if sentenceLeft == 0 || left == 0 {
			w += "."
		}
		want := sep + w
		sep = " "
		if sentenceLeft == 0 {
			sentences++
			sentenceLeft = 6 + rng.IntN(9)
			capital = true
			if sentences%3 == 0 {
				sep = "\n"
			}
		}
		if got := g.next(); got != want {
			t.Fatalf("token %d = %q, want %q", k, got, want)
		}
	}
}

func TestGeneratorAllocs(t *testing.T) {
	g := newGenerator(rand.New(rand.NewPCG(1, 2)), 1<<20)
	if n := testing.AllocsPerRun(1000, func() { g.next() }); n != 0 {
		t.Errorf("allocations per generated token = %v, want 0", n)
	}
}
