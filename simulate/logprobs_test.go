package simulate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace/simulate"
)

// accented is a reply whose tokens are not all ASCII, so that bytes and
// text offsets are checked on multi-byte characters.
const accented = "Un café très naïve, merci."

// lpEntry is one token's log-probability entry, whichever API carried it.
type lpEntry struct {
	token   string
	logprob float64
	bytes   []int64 // nil where the API carries none
	top     []lpAlt
}

type lpAlt struct {
	token   string
	logprob float64
	bytes   []int64
}

// checkEntries checks entries of a reply whose text they must spell:
// one per token, logprob ≤ 0, bytes the token's UTF-8 (when withBytes),
// k alternatives sorted from the most likely, the first the token itself,
// and none more likely than the token.
func checkEntries(t *testing.T, what string, entries []lpEntry, text string, k int, withBytes bool) {
	t.Helper()
	var spelled strings.Builder
	for i, e := range entries {
		spelled.WriteString(e.token)
		if !(e.logprob <= 0) {
			t.Errorf("%s entry %d (%q) logprob = %v, want ≤ 0", what, i, e.token, e.logprob)
		}
		if withBytes && !reflect.DeepEqual(e.bytes, utf8Ints(e.token)) {
			t.Errorf("%s entry %d (%q) bytes = %v, want %v", what, i, e.token, e.bytes, utf8Ints(e.token))
		}
		if len(e.top) != k {
			t.Errorf("%s entry %d has %d top_logprobs, want %d", what, i, len(e.top), k)
			continue
		}
		seen := map[string]bool{}
		for j, a := range e.top {
			if a.logprob > e.logprob {
				t.Errorf("%s entry %d (%q, %v): alternative %q has logprob %v, above the token's", what, i, e.token, e.logprob, a.token, a.logprob)
			}
			if j > 0 && a.logprob > e.top[j-1].logprob {
				t.Errorf("%s entry %d: top_logprobs not sorted: %v after %v", what, i, a.logprob, e.top[j-1].logprob)
			}
			if seen[a.token] {
				t.Errorf("%s entry %d: %q listed twice in top_logprobs", what, i, a.token)
			}
			seen[a.token] = true
			if withBytes && !reflect.DeepEqual(a.bytes, utf8Ints(a.token)) {
				t.Errorf("%s entry %d: alternative %q bytes = %v, want %v", what, i, a.token, a.bytes, utf8Ints(a.token))
			}
		}
		if k > 0 && (e.top[0].token != e.token || e.top[0].logprob != e.logprob) {
			t.Errorf("%s entry %d: top_logprobs[0] = %q %v, want the token itself, %q %v", what, i, e.top[0].token, e.top[0].logprob, e.token, e.logprob)
		}
	}
	if spelled.String() != text {
		t.Errorf("%s tokens spell %q, want %q", what, spelled.String(), text)
	}
}

func utf8Ints(s string) []int64 {
	out := make([]int64, len(s))
	for i := range len(s) {
		out[i] = int64(s[i])
	}
	return out
}

func chatEntries(lps []openai.ChatCompletionTokenLogprob) []lpEntry {
	var out []lpEntry
	for _, l := range lps {
		e := lpEntry{token: l.Token, logprob: l.Logprob, bytes: l.Bytes}
		for _, a := range l.TopLogprobs {
			e.top = append(e.top, lpAlt{a.Token, a.Logprob, a.Bytes})
		}
		out = append(out, e)
	}
	return out
}

// accentedClient returns a client of a simulated model "m" that answers
// accented, two tokens a chunk, its first 100 ms after the request and
// one every 10 ms after it.
func accentedClient(t *testing.T) openai.Client {
	t.Helper()
	return newClient(simulate.StartInMemory(t,
		simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100), ITL: ms(10)}),
		simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return accented, true }),
		simulate.WithChunkTokens(2)))
}

// A chat stream asked for logprobs carries, in every chunk of text, one
// entry per token of that chunk (two a chunk here), in openai-go's
// ChatCompletionTokenLogprob shape; the same request gets the same
// values again, and the whole response lists every token.
func TestChatLogprobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := accentedClient(t)
		params := openai.ChatCompletionNewParams{
			Model:       "m",
			Messages:    []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say something.")},
			Logprobs:    openai.Bool(true),
			TopLogprobs: openai.Int(3),
			Seed:        openai.Int(7),
		}
		stream := func() []lpEntry {
			s := c.Chat.Completions.NewStreaming(context.Background(), params)
			defer s.Close()
			var all []lpEntry
			for s.Next() {
				ch := s.Current()
				if len(ch.Choices) == 0 || ch.Choices[0].Delta.Content == "" {
					continue
				}
				got := chatEntries(ch.Choices[0].Logprobs.Content)
				if len(got) == 0 || len(got) > 2 {
					t.Errorf("chunk %q carries %d logprob entries, want 1 or 2 (one per token)", ch.Choices[0].Delta.Content, len(got))
				}
				checkEntries(t, "chunk", got, ch.Choices[0].Delta.Content, 3, true)
				all = append(all, got...)
			}
			if err := s.Err(); err != nil {
				t.Fatalf("stream error: %v", err)
			}
			return all
		}
		first := stream()
		checkEntries(t, "stream", first, accented, 3, true)
		if again := stream(); !reflect.DeepEqual(first, again) {
			t.Errorf("the same request's logprobs differ:\n%v\n%v", first, again)
		}

		res, err := c.Chat.Completions.New(context.Background(), params)
		if err != nil {
			t.Fatalf("Chat.Completions.New: %v", err)
		}
		whole := chatEntries(res.Choices[0].Logprobs.Content)
		checkEntries(t, "whole", whole, accented, 3, true)
		if !reflect.DeepEqual(whole, first) {
			t.Errorf("whole response's logprobs differ from the stream's:\n%v\n%v", whole, first)
		}
	})
}

// logprobs: true without top_logprobs gives each token its entry and an
// empty top_logprobs list; without logprobs there is none (null).
func TestChatLogprobsWithoutTop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := scripted(t)
		c := newClient(ts)
		params := openai.ChatCompletionNewParams{
			Model:    "m",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say something.")},
			Logprobs: openai.Bool(true),
		}
		res, err := c.Chat.Completions.New(context.Background(), params)
		if err != nil {
			t.Fatalf("Chat.Completions.New: %v", err)
		}
		checkEntries(t, "whole", chatEntries(res.Choices[0].Logprobs.Content), script, 0, true)
		if raw := res.Choices[0].Logprobs.RawJSON(); !strings.Contains(raw, `"top_logprobs":[]`) {
			t.Errorf("logprobs = %s, want empty top_logprobs lists", raw)
		}
		params.Logprobs = openai.Bool(false)
		res, err = c.Chat.Completions.New(context.Background(), params)
		if err != nil {
			t.Fatalf("Chat.Completions.New: %v", err)
		}
		if raw := res.Choices[0].JSON.Logprobs.Raw(); raw != "null" {
			t.Errorf("logprobs without logprobs asked = %s, want null", raw)
		}
	})
}

// Out-of-range logprob parameters get OpenAI's 400s: top_logprobs needs
// logprobs: true and is at most 20; legacy logprobs is at most 5;
// Responses' top_logprobs at most 20.
func TestLogprobsParameterErrors(t *testing.T) {
	ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{}))
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	tests := []struct {
		path, body, param string
	}{
		{"/v1/chat/completions", `{"model":"m",` + msgs + `,"top_logprobs":2}`, "top_logprobs"},
		{"/v1/chat/completions", `{"model":"m",` + msgs + `,"logprobs":false,"top_logprobs":2}`, "top_logprobs"},
		{"/v1/chat/completions", `{"model":"m",` + msgs + `,"logprobs":true,"top_logprobs":21}`, "top_logprobs"},
		{"/v1/chat/completions", `{"model":"m",` + msgs + `,"logprobs":true,"top_logprobs":-1}`, "top_logprobs"},
		{"/v1/completions", `{"model":"m","prompt":"hi","logprobs":6}`, "logprobs"},
		{"/v1/completions", `{"model":"m","prompt":"hi","logprobs":-1}`, "logprobs"},
		{"/v1/responses", `{"model":"m","input":"hi","top_logprobs":21}`, "top_logprobs"},
	}
	for _, tt := range tests {
		x := post(t, ts, tt.path, tt.body, nil)
		var e struct {
			Error struct {
				Param string `json:"param"`
				Type  string `json:"type"`
			} `json:"error"`
		}
		json.Unmarshal([]byte(x.body), &e)
		if x.status != 400 || e.Error.Param != tt.param || e.Error.Type != "invalid_request_error" {
			t.Errorf("POST %s %s = %d %s, want 400 naming %s", tt.path, tt.body, x.status, x.body, tt.param)
		}
	}
}

func completionEntries(t *testing.T, lp openai.CompletionChoiceLogprobs) []lpEntry {
	t.Helper()
	if len(lp.TokenLogprobs) != len(lp.Tokens) || len(lp.TopLogprobs) != len(lp.Tokens) || len(lp.TextOffset) != len(lp.Tokens) {
		t.Fatalf("logprobs arrays of unequal lengths: %s", lp.RawJSON())
	}
	var out []lpEntry
	for i, tok := range lp.Tokens {
		e := lpEntry{token: tok, logprob: lp.TokenLogprobs[i]}
		for a, l := range lp.TopLogprobs[i] {
			e.top = append(e.top, lpAlt{token: a, logprob: l})
		}
		// A map has no order: list the token first, then the others by
		// falling likelihood, as checkEntries expects.
		slicesSortAlts(e.top, tok)
		out = append(out, e)
	}
	return out
}

func slicesSortAlts(alts []lpAlt, first string) {
	for i := 1; i < len(alts); i++ {
		for j := i; j > 0 && less(alts[j], alts[j-1], first); j-- {
			alts[j], alts[j-1] = alts[j-1], alts[j]
		}
	}
}

func less(a, b lpAlt, first string) bool {
	if a.token == first || b.token == first {
		return a.token == first
	}
	return a.logprob > b.logprob
}

// Legacy completions with logprobs = k carry, per chunk, the tokens, their
// logprobs, a map of the k most likely tokens each and their text offsets
// (counted in characters from the prompt's start, the prompt first), as
// openai-go's CompletionChoiceLogprobs reads them.
func TestCompletionsLogprobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := accentedClient(t)
		const prompt = "Café? "
		params := openai.CompletionNewParams{
			Model:    "m",
			Prompt:   openai.CompletionNewParamsPromptUnion{OfString: openai.String(prompt)},
			Logprobs: openai.Int(2),
		}
		s := c.Completions.NewStreaming(context.Background(), params)
		defer s.Close()
		var all []lpEntry
		var offsets []int64
		for s.Next() {
			ch := s.Current()
			if len(ch.Choices) == 0 || ch.Choices[0].Text == "" {
				continue
			}
			got := completionEntries(t, ch.Choices[0].Logprobs)
			checkEntries(t, "chunk", got, ch.Choices[0].Text, 2, false)
			all = append(all, got...)
			offsets = append(offsets, ch.Choices[0].Logprobs.TextOffset...)
		}
		if err := s.Err(); err != nil {
			t.Fatalf("stream error: %v", err)
		}
		checkEntries(t, "stream", all, accented, 2, false)
		pos := int64(len([]rune(prompt)))
		for i, e := range all {
			if offsets[i] != pos {
				t.Errorf("token %d (%q) text_offset = %d, want %d", i, e.token, offsets[i], pos)
			}
			pos += int64(len([]rune(e.token)))
		}

		res, err := c.Completions.New(context.Background(), params)
		if err != nil {
			t.Fatalf("Completions.New: %v", err)
		}
		whole := completionEntries(t, res.Choices[0].Logprobs)
		checkEntries(t, "whole", whole, accented, 2, false)
		if !reflect.DeepEqual(whole, all) {
			t.Errorf("whole response's logprobs differ from the stream's:\n%v\n%v", whole, all)
		}
	})
}

// A Responses request that includes message.output_text.logprobs gets an
// entry per token in each output_text.delta event and, with bytes, in the
// output_text part of the finished message; top_logprobs sets how many
// alternatives each lists.
func TestResponsesLogprobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := accentedClient(t)
		params := responses.ResponseNewParams{
			Model:       "m",
			Input:       responses.ResponseNewParamsInputUnion{OfString: openai.String("Say something.")},
			Include:     []responses.ResponseIncludable{responses.ResponseIncludableMessageOutputTextLogprobs},
			TopLogprobs: openai.Int(4),
		}
		s := c.Responses.NewStreaming(context.Background(), params)
		defer s.Close()
		var deltas, done []lpEntry
		var final responses.Response
		for s.Next() {
			switch e := s.Current().AsAny().(type) {
			case responses.ResponseTextDeltaEvent:
				var got []lpEntry
				for _, l := range e.Logprobs {
					x := lpEntry{token: l.Token, logprob: l.Logprob}
					for _, a := range l.TopLogprobs {
						x.top = append(x.top, lpAlt{token: a.Token, logprob: a.Logprob})
					}
					got = append(got, x)
				}
				checkEntries(t, "delta", got, e.Delta, 4, false)
				deltas = append(deltas, got...)
			case responses.ResponseTextDoneEvent:
				for _, l := range e.Logprobs {
					x := lpEntry{token: l.Token, logprob: l.Logprob}
					for _, a := range l.TopLogprobs {
						x.top = append(x.top, lpAlt{token: a.Token, logprob: a.Logprob})
					}
					done = append(done, x)
				}
			case responses.ResponseCompletedEvent:
				final = e.Response
			}
		}
		if err := s.Err(); err != nil {
			t.Fatalf("stream error: %v", err)
		}
		checkEntries(t, "deltas", deltas, accented, 4, false)
		if !reflect.DeepEqual(done, deltas) {
			t.Errorf("output_text.done logprobs differ from the deltas':\n%v\n%v", done, deltas)
		}
		part := func(r responses.Response) []lpEntry {
			var out []lpEntry
			for _, it := range r.Output {
				for _, c := range it.Content {
					for _, l := range c.Logprobs {
						x := lpEntry{token: l.Token, logprob: l.Logprob, bytes: l.Bytes}
						for _, a := range l.TopLogprobs {
							x.top = append(x.top, lpAlt{a.Token, a.Logprob, a.Bytes})
						}
						out = append(out, x)
					}
				}
			}
			return out
		}
		checkEntries(t, "completed", part(final), accented, 4, true)
		if fmt.Sprint(stripBytes(part(final))) != fmt.Sprint(deltas) {
			t.Errorf("response.completed logprobs differ from the deltas'")
		}
		res, err := c.Responses.New(context.Background(), params)
		if err != nil {
			t.Fatalf("Responses.New: %v", err)
		}
		checkEntries(t, "whole", part(*res), accented, 4, true)
	})
}

func stripBytes(es []lpEntry) []lpEntry {
	out := make([]lpEntry, len(es))
	for i, e := range es {
		e.bytes = nil
		top := make([]lpAlt, len(e.top))
		for j, a := range e.top {
			a.bytes = nil
			top[j] = a
		}
		e.top = top
		out[i] = e
	}
	return out
}

// With echo, the prompt's tokens come first in the logprobs, the first
// without a log-probability (null), as OpenAI gives them; text offsets
// then start at 0.
func TestCompletionsLogprobsEcho(t *testing.T) {
	synctest.Test(t, testCompletionsLogprobsEcho)
}

func testCompletionsLogprobsEcho(t *testing.T) {
	ts := scripted(t)
	x := post(t, ts, "/v1/completions", `{"model":"m","prompt":"Say hi","echo":true,"logprobs":1,"max_tokens":2}`, nil)
	var res struct {
		Choices []struct {
			Text     string `json:"text"`
			Logprobs struct {
				Tokens        []string             `json:"tokens"`
				TokenLogprobs []*float64           `json:"token_logprobs"`
				TopLogprobs   []map[string]float64 `json:"top_logprobs"`
				TextOffset    []int                `json:"text_offset"`
			} `json:"logprobs"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(x.body), &res); err != nil || len(res.Choices) != 1 {
		t.Fatalf("body %s: %v", x.body, err)
	}
	lp := res.Choices[0].Logprobs
	if got, want := strings.Join(lp.Tokens, ""), "Say hiHello there,"; got != want || res.Choices[0].Text != want {
		t.Errorf("tokens spell %q, text %q, want %q", got, res.Choices[0].Text, want)
	}
	if len(lp.TokenLogprobs) != 4 || lp.TokenLogprobs[0] != nil || lp.TopLogprobs[0] != nil || lp.TokenLogprobs[1] == nil {
		t.Errorf("logprobs = %s, want 4 entries, the first null", x.body)
	}
	if fmt.Sprint(lp.TextOffset) != "[0 3 6 11]" {
		t.Errorf("text_offset = %v, want [0 3 6 11]", lp.TextOffset)
	}
}
