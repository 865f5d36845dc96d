package simulate

import (
	"hash"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// vocabulary holds the words generated text is made of.
var vocabulary = strings.Fields(`
the a of to and in for on with by from at as is are was be can will
latency token stream model prompt cache memory bandwidth compute batch
queue request server client budget decode prefill throughput answer text
first next each every fast slow small large quick steady clear simple
time step chunk byte layer weight kernel tensor engine network proxy
measure predict serve route hedge retry wait read write send keep
`)

// generator makes deterministic text token by token: words with leading
// spaces, sentences of 6 to 14 words ending in a full stop, and a line break
// after every third sentence, so that clients can find the first sentence
// and the first line. The first token has no leading space, and the last of
// its n tokens ends with a full stop.
type generator struct {
	rng          *rand.Rand
	left         int // tokens still to make
	sentenceLeft int // words left in the sentence
	sentences    int
	sep          int  // before the next word: sepNone, sepSpace or sepLine
	capital      bool // the next word starts a sentence
}

func newGenerator(rng *rand.Rand, n int) *generator {
	return &generator{rng: rng, left: n, sentenceLeft: 6 + rng.IntN(9), capital: true}
}

// next returns the next token; it must not be called more than n times.
// Tokens come from a table made once, so making one allocates nothing.
func (g *generator) next() string {
	i := g.rng.IntN(len(vocabulary))
	capital := g.capital
	g.capital = false
	g.left--
	g.sentenceLeft--
	stop := g.sentenceLeft == 0 || g.left == 0
	tok := tokenForms()[g.sep][formIndex(capital, stop)][i]
	g.sep = sepSpace
	if g.sentenceLeft == 0 {
		g.sentences++
		g.sentenceLeft = 6 + g.rng.IntN(9)
		g.capital = true
		if g.sentences%3 == 0 {
			g.sep = sepLine
		}
	}
	return tok
}

// What comes before a generated word.
const (
	sepNone  = iota // the reply's first word
	sepSpace        // " "
	sepLine         // "\n", after every third sentence
)

// formIndex numbers the four forms of a word: capitalised or not, with a
// full stop or not.
func formIndex(capital, stop bool) int {
	i := 0
	if capital {
		i |= 1
	}
	if stop {
		i |= 2
	}
	return i
}

// tokenForms returns every token the generator can make, by separator,
// form and word.
var tokenForms = sync.OnceValue(func() (t [3][4][]string) {
	seps := [3]string{sepNone: "", sepSpace: " ", sepLine: "\n"}
	for s, sep := range seps {
		for f := range 4 {
			t[s][f] = make([]string, len(vocabulary))
			for i, w := range vocabulary {
				if f&1 != 0 {
					w = strings.ToUpper(w[:1]) + w[1:]
				}
				if f&2 != 0 {
					w += "."
				}
				t[s][f][i] = sep + w
			}
		}
	}
	return t
})

// generate returns all n tokens of a generator.
func generate(rng *rand.Rand, n int) []string {
	g := newGenerator(rng, n)
	tokens := make([]string, n)
	for i := range tokens {
		tokens[i] = g.next()
	}
	return tokens
}

// splitTokens cuts a scripted reply into tokens the way generate makes
// them: each token is a run of whitespace followed by a run of non-space
// characters. Concatenating the tokens gives text back unchanged.
func splitTokens(text string) []string {
	var tokens []string
	start := 0
	inWord := false
	for i, r := range text {
		space := unicode.IsSpace(r)
		if space && inWord {
			tokens = append(tokens, text[start:i])
			start = i
		}
		inWord = !space
	}
	if start < len(text) {
		tokens = append(tokens, text[start:])
	}
	return tokens
}

// cutAtStop returns the tokens up to the first occurrence of any of stop in
// their concatenation, the stop sequence excluded as OpenAI does, and
// whether a stop sequence was found. The token that holds the start of the
// stop sequence is shortened; tokens left empty are dropped.
func cutAtStop(tokens []string, stop []string) ([]string, bool) {
	if len(stop) == 0 {
		return tokens, false
	}
	text := strings.Join(tokens, "")
	cut := -1
	for _, s := range stop {
		if s == "" {
			continue
		}
		if i := strings.Index(text, s); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut < 0 {
		return tokens, false
	}
	var out []string
	pos := 0
	for _, t := range tokens {
		if pos >= cut {
			break
		}
		if pos+len(t) > cut {
			t = t[:cut-pos]
		}
		pos += len(t)
		out = append(out, t)
	}
	return out, true
}

// Token estimates. The simulator has no tokenizer; it counts about four
// bytes of text per token, as OpenAI's rule of thumb does for English:
//
//	message tokens = ceil(bytes of content / 4) + 4 (role and framing)
//	chat prompt    = sum of message tokens + 3 (priming of the reply)
//	text prompt    = ceil(bytes / 4), at least 1
const (
	bytesPerToken   = 4
	tokensPerMsg    = 4
	tokensPerPrompt = 3
)

// textTokens is the token estimate of text.
func textTokens(text string) int {
	return (len(text) + bytesPerToken - 1) / bytesPerToken
}

// messageTokens is the token estimate of one chat message.
func messageTokens(content string) int {
	return textTokens(content) + tokensPerMsg
}

// promptInfo is what the engine learns from a prompt.
type promptInfo struct {
	tokens       int    // whole prompt estimate
	prefixKey    string // hash of every message but the last; "" if one
	prefixTokens int    // estimate of those messages
	hash         uint64 // hash of the whole prompt, for seeding text
	nextKey      string // the prompt and its reply, for the next turn or the same prompt again; "" if none
}

// chatPrompt estimates a chat prompt and derives its prefix key: a hash of
// every message but the last (roles and contents), so that conversations
// that share their history share a prefix in the engine's cache. A
// conversation's next turn (an assistant reply, then a new message) keys
// its prefix as the turn before it, whose prompt and reply the engine
// keeps under nextKey: "turn:" and the hash of that turn's whole prompt.
// The reply is not compared: a history whose last reply is not the one
// the server gave reuses as many tokens as its own reply's length allows.
func chatPrompt(msgs []chatMessage) promptInfo {
	var p promptInfo
	h := fnv.New64a()
	for i, m := range msgs {
		if i == len(msgs)-2 && i > 0 && m.Role == "assistant" {
			p.prefixKey = "turn:" + strconv.FormatUint(h.Sum64(), 16)
		}
		if i == len(msgs)-1 && i > 0 {
			if p.prefixKey == "" {
				p.prefixKey = strconv.FormatUint(h.Sum64(), 16)
			}
			p.prefixTokens = p.tokens
		}
		p.add(h, m)
	}
	p.seal(h)
	return p
}

// add adds m to p, a conversation's prompt hashed into h.
func (p *promptInfo) add(h hash.Hash64, m chatMessage) {
	h.Write([]byte(m.Role))
	h.Write([]byte{0})
	h.Write([]byte(m.text))
	h.Write([]byte{0})
	p.tokens += messageTokens(m.text)
}

// seal ends p, a conversation's prompt hashed into h: the prompt's own
// tokens, its hash and the key of its turn for the next one.
func (p *promptInfo) seal(h hash.Hash64) {
	p.tokens += tokensPerPrompt
	p.hash = h.Sum64()
	p.nextKey = "turn:" + strconv.FormatUint(p.hash, 16)
}

// textPrompt estimates a legacy completions prompt; it has no prefix key.
func textPrompt(text string) promptInfo { return fimPrompt(text, "") }

// fimPrompt estimates a fill-in-the-middle prompt: the text before the
// cursor and the suffix after it. It has no prefix key; its nextKey,
// "text:" and the prompt's hash, finds the same prompt sent again in the
// cache.
func fimPrompt(text, suffix string) promptInfo {
	h := fnv.New64a()
	h.Write([]byte(text))
	if suffix != "" {
		h.Write([]byte{0})
		h.Write([]byte(suffix))
	}
	sum := h.Sum64()
	return promptInfo{tokens: max(textTokens(text)+textTokens(suffix), 1), hash: sum, nextKey: "text:" + strconv.FormatUint(sum, 16)}
}

// replyText is a request's reply, handed out token by token: held in full
// when scripted or cut at a stop sequence, made on demand otherwise, so a
// request for 100k tokens costs no memory until they are sent.
type replyText struct {
	tokens []string   // the reply, when held in full
	gen    *generator // else its generator
	n      int        // tokens in all
	pos    int        // tokens handed out
}

func heldText(tokens []string) *replyText { return &replyText{tokens: tokens, n: len(tokens)} }

func generatedText(rng *rand.Rand, n int) *replyText {
	return &replyText{gen: newGenerator(rng, n), n: n}
}

// take returns the next k tokens, concatenated (fewer at the end).
func (t *replyText) take(k int) string {
	k = min(k, t.n-t.pos)
	if k <= 0 {
		return ""
	}
	var s string
	switch {
	case t.gen != nil && k == 1:
		s = t.gen.next()
	case t.gen != nil:
		var b strings.Builder
		for range k {
			b.WriteString(t.gen.next())
		}
		s = b.String()
	case k == 1:
		s = t.tokens[t.pos]
	default:
		s = strings.Join(t.tokens[t.pos:t.pos+k], "")
	}
	t.pos += k
	return s
}

// takeTokens appends the next k tokens to dst, one string each (fewer at
// the end), and returns it.
func (t *replyText) takeTokens(dst []string, k int) []string {
	k = min(k, t.n-t.pos)
	for range max(k, 0) {
		if t.gen != nil {
			dst = append(dst, t.gen.next())
		} else {
			dst = append(dst, t.tokens[t.pos])
		}
		t.pos++
	}
	return dst
}
