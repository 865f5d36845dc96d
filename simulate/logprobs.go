package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Log-probabilities. The simulator has no model to score tokens, so it
// draws them: each token is the most likely at its position (its logprob
// between about -1.4 and 0), and its alternatives are other words of the
// vocabulary, after the same leading space or line break, each less likely
// than the one before, the probabilities summing to less than 1. The draws
// come from their own generator, seeded as the reply's text is, so the
// same request gets the same values, and asking for them changes nothing
// else.

// Most alternatives a request may ask for, as OpenAI documents:
// top_logprobs on chat and Responses, logprobs on legacy completions.
const (
	maxTopLogprobs    = 20
	maxLegacyLogprobs = 5
)

// logprobSeedSalt ("logprobs") keeps the draws of log-probabilities apart
// from those of the text.
const logprobSeedSalt = 0x6c6f6770726f6273

// logprobAsk is what a request asks of log-probabilities: nothing (the
// zero value), or an entry per output token listing top alternatives.
type logprobAsk struct {
	on  bool
	top int // alternatives listed per token, the token itself first
}

// tokenLogprob is the log-probability entry of one token.
type tokenLogprob struct {
	token   string
	logprob float64
	// none marks an echoed prompt's first token, which has no
	// log-probability (null on the wire).
	none bool
	top  []altLogprob // most likely first; the token itself leads
}

// altLogprob is one of the most likely tokens at a position.
type altLogprob struct {
	token   string
	logprob float64
}

// logprober draws the log-probabilities of a reply's tokens in order.
// One is made per request; it is not safe for concurrent use.
type logprober struct {
	rng  *rand.Rand
	top  int
	pick []int // vocabulary indexes picked for one position
}

func newLogprober(ask logprobAsk, seed, stream uint64) *logprober {
	return &logprober{rng: rand.New(rand.NewPCG(seed^logprobSeedSalt, stream)), top: ask.top}
}

// entry draws the entry of the next token, tok.
func (p *logprober) entry(tok string) tokenLogprob {
	u := p.rng.Float64()
	p0 := 0.9999 - 0.75*u*u // the token's probability, 0.25..0.9999
	e := tokenLogprob{token: tok, logprob: math.Log(p0)}
	if p.top == 0 {
		return e
	}
	e.top = make([]altLogprob, 1, p.top)
	e.top[0] = altLogprob{tok, e.logprob}
	lead := leadingSpace(tok)
	p.pick = p.pick[:0]
	rest, last := 1-p0, p0
	for len(e.top) < p.top {
		i := p.rng.IntN(len(vocabulary))
		alt := alternative(lead, i)
		if alt == tok || slices.Contains(p.pick, i) {
			continue
		}
		p.pick = append(p.pick, i)
		// Each takes half to nine tenths of the probability left, and
		// less than the one before.
		prob := min(rest*(0.5+0.4*p.rng.Float64()), 0.9*last)
		rest -= prob
		last = prob
		e.top = append(e.top, altLogprob{alt, math.Log(prob)})
	}
	return e
}

// leadingSpace returns the whitespace tok starts with.
func leadingSpace(tok string) string {
	return tok[:len(tok)-len(strings.TrimLeft(tok, " \t\r\n"))]
}

// alternative returns word i of the vocabulary after lead.
func alternative(lead string, i int) string {
	switch lead {
	case "":
		return tokenForms()[sepNone][0][i]
	case " ":
		return tokenForms()[sepSpace][0][i]
	case "\n":
		return tokenForms()[sepLine][0][i]
	}
	return lead + vocabulary[i]
}

// appendLogprob appends logprob as a JSON number.
func appendLogprob(b []byte, logprob float64) []byte {
	if logprob == 0 {
		return append(b, '0')
	}
	return strconv.AppendFloat(b, logprob, 'f', -1, 64)
}

// appendBytes appends the UTF-8 bytes of s as a JSON array of integers.
func appendBytes(b []byte, s string) []byte {
	b = append(b, '[')
	for i := range len(s) {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(s[i]), 10)
	}
	return append(b, ']')
}

// logprobStyle is how an API writes one entry: with or without bytes.
type logprobStyle int

const (
	withBytes    logprobStyle = iota // chat, and a Responses output_text part
	withoutBytes                     // a Responses output_text delta or done event
)

// appendEntries appends entries as a JSON array of OpenAI's token logprob
// objects: {token, logprob, bytes, top_logprobs: [{token, logprob, bytes}]},
// without bytes in style withoutBytes.
func appendEntries(b []byte, entries []tokenLogprob, style logprobStyle) []byte {
	b = append(b, '[')
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendAlt(b, altLogprob{e.token, e.logprob}, style)
		b = append(b[:len(b)-1], `,"top_logprobs":[`...)
		for j, a := range e.top {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendAlt(b, a, style)
		}
		b = append(b, "]}"...)
	}
	return append(b, ']')
}

// appendAlt appends one {token, logprob, bytes} object.
func appendAlt(b []byte, a altLogprob, style logprobStyle) []byte {
	b = append(b, `{"token":`...)
	b = appendString(b, a.token)
	b = append(b, `,"logprob":`...)
	b = appendLogprob(b, a.logprob)
	if style == withBytes {
		b = append(b, `,"bytes":`...)
		b = appendBytes(b, a.token)
	}
	return append(b, '}')
}

// appendLegacyLogprobs appends entries as a legacy completion's logprobs
// object: tokens, token_logprobs, top_logprobs (a map per token, the
// token itself included) and text_offset, each token's offset in
// characters counted from offset. It returns the offset after them.
func appendLegacyLogprobs(b []byte, entries []tokenLogprob, offset int) ([]byte, int) {
	b = append(b, `{"tokens":[`...)
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, e.token)
	}
	b = append(b, `],"token_logprobs":[`...)
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		if e.none {
			b = append(b, `null`...)
		} else {
			b = appendLogprob(b, e.logprob)
		}
	}
	b = append(b, `],"top_logprobs":[`...)
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		switch {
		case e.none:
			b = append(b, `null`...)
		case len(e.top) == 0:
			// The sampled token is always listed.
			b = append(b, '{')
			b = appendString(b, e.token)
			b = append(b, ':')
			b = append(appendLogprob(b, e.logprob), '}')
		default:
			b = append(b, '{')
			for j, a := range e.top {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendString(b, a.token)
				b = append(b, ':')
				b = appendLogprob(b, a.logprob)
			}
			b = append(b, '}')
		}
	}
	b = append(b, `],"text_offset":[`...)
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(offset), 10)
		offset += utf8.RuneCountInString(e.token)
	}
	return append(b, "]}"...), offset
}

// rangeError is OpenAI's 400 for an integer parameter outside min..max.
func rangeError(param string, v, lo, hi int) *apiError {
	e := badRequest(param, fmt.Sprintf("Invalid '%s': integer above maximum value. Expected a value <= %d, but got %d instead.", param, hi, v))
	e.code = "integer_above_max_value"
	if v < lo {
		e.message = fmt.Sprintf("Invalid '%s': integer below minimum value. Expected a value >= %d, but got %d instead.", param, lo, v)
		e.code = "integer_below_min_value"
	}
	return e
}

// chatLogprobs reads a chat request's logprobs and top_logprobs:
// top_logprobs (0..20) needs logprobs: true, as OpenAI answers.
func chatLogprobs(on *bool, top *int) (logprobAsk, *apiError) {
	ask := logprobAsk{on: on != nil && *on}
	if top == nil {
		return ask, nil
	}
	if !ask.on {
		return logprobAsk{}, badRequest("top_logprobs", "Invalid value for 'top_logprobs': 'logprobs' must be set to true when 'top_logprobs' is used.")
	}
	if *top < 0 || *top > maxTopLogprobs {
		return logprobAsk{}, rangeError("top_logprobs", *top, 0, maxTopLogprobs)
	}
	ask.top = *top
	return ask, nil
}

// legacyLogprobs reads a legacy completions request's logprobs, 0..5:
// how many alternatives each token lists (the sampled token is always
// listed).
func legacyLogprobs(n *int) (logprobAsk, *apiError) {
	if n == nil {
		return logprobAsk{}, nil
	}
	if *n < 0 || *n > maxLegacyLogprobs {
		return logprobAsk{}, rangeError("logprobs", *n, 0, maxLegacyLogprobs)
	}
	return logprobAsk{on: true, top: *n}, nil
}

// responsesLogprobs reads a Responses request's top_logprobs (0..20) and
// include: logprobs are given when include holds
// "message.output_text.logprobs" or top_logprobs is above 0.
func responsesLogprobs(top *int, include []string) (logprobAsk, *apiError) {
	var ask logprobAsk
	if top != nil {
		if *top < 0 || *top > maxTopLogprobs {
			return logprobAsk{}, rangeError("top_logprobs", *top, 0, maxTopLogprobs)
		}
		ask.top = *top
	}
	ask.on = ask.top > 0 || slices.Contains(include, "message.output_text.logprobs")
	return ask, nil
}
