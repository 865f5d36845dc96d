package codec

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestAccumulatorRunsOfText: an Accumulator adds a run of plain text
// chunks to openai-go's accumulator as one chunk, when it is read or a
// chunk of another kind comes. Whatever the chunks (roles, again or another, refusals,
// logprobs, finish reasons, text after a finish, a second choice, usage,
// the model, creation time, fingerprint and service tier changing, every
// chunk with an id of its own) and whenever the caller reads (Completion,
// Text), the accumulation equals openai-go's, fed every chunk one by one
// (their chat view, under the first chunk's id, without usage, as Add
// feeds it), and Text is its first choice's content.
func TestAccumulatorRunsOfText(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{N: openai.Int(2)}, true)
	words := []string{"Hello", " wörld", ",", " 東京", "\n", " a", "\"q\"", " 🙂"}
	for seed := range uint64(300) {
		rnd := rand.New(rand.NewPCG(seed, 7))
		var got Accumulator
		var want openai.ChatCompletionAccumulator
		var data []string
		chunk := func(i int, choices string) string {
			id := "c0"
			if rnd.IntN(4) == 0 {
				id = fmt.Sprint("c", i)
			}
			model := []string{"m", "m", "m", "m2", ""}[rnd.IntN(5)]
			return fmt.Sprintf(`{"id":%q,"object":"chat.completion.chunk","created":%d,"model":%q,"system_fingerprint":"fp%d","service_tier":"default","choices":[%s]}`,
				id, 100+rnd.IntN(3), model, rnd.IntN(2), choices)
		}
		data = append(data, chunk(0, `{"index":0,"delta":{"role":"assistant","content":""}}`))
		for i := 1; i < 40; i++ {
			w, _ := json.Marshal(words[rnd.IntN(len(words))])
			var choices string
			switch k := rnd.IntN(20); {
			case k < 13:
				choices = fmt.Sprintf(`{"index":0,"delta":{"content":%s}}`, w)
			case k == 13:
				choices = fmt.Sprintf(`{"index":0,"delta":{"refusal":%s}}`, w)
			case k == 14:
				choices = fmt.Sprintf(`{"index":0,"delta":{"content":%s},"logprobs":{"content":[{"token":%s,"logprob":-0.5,"bytes":[65],"top_logprobs":[]}]}}`, w, w)
			case k == 15:
				choices = fmt.Sprintf(`{"index":1,"delta":{"role":"assistant","content":%s}}`, w)
			case k == 16:
				choices = fmt.Sprintf(`{"index":0,"delta":{"content":%s},"finish_reason":"stop"}`, w)
			case k == 17 && rnd.IntN(2) == 0:
				choices = fmt.Sprintf(`{"index":0,"delta":{"role":"user","content":%s}}`, w)
			case k == 17:
				choices = `{"index":0,"delta":{},"finish_reason":"length"}`
			case k == 18:
				choices = fmt.Sprintf(`{"index":0,"delta":{"content":%s}},{"index":1,"delta":{"content":%s}}`, w, w)
			default:
				choices = fmt.Sprintf(`{"index":0,"delta":{"role":"assistant","content":%s}}`, w)
			}
			data = append(data, chunk(i, choices))
		}
		if rnd.IntN(2) == 0 { // else the stream ends in a run of text, whose last chunk's metadata stands
			data = append(data, `{"id":"c0","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":39,"total_tokens":42}}`)
		}

		var first string
		for i, d := range data {
			ev, err := chat.Decode([]byte(d))
			if err != nil {
				t.Fatalf("seed %d: %s: %v", seed, d, err)
			}
			if !got.Add(&ev) {
				t.Fatalf("seed %d: Add refused chunk %d: %s", seed, i, d)
			}
			c := *ev.Chunk
			if first == "" {
				first = c.ID
			}
			c.ID, c.Usage = first, openai.CompletionUsage{}
			if !want.AddChunk(c) {
				t.Fatalf("seed %d: openai-go refused chunk %d: %s", seed, i, d)
			}
			switch rnd.IntN(6) {
			case 0:
				if g, w := comparable(got.Completion().ChatCompletion), comparable(want.ChatCompletion); g != w {
					t.Fatalf("seed %d, after chunk %d: accumulated\n%s\nwant\n%s\nchunks:\n%s", seed, i, g, w, strings.Join(data[:i+1], "\n"))
				}
			case 1:
				if text, wtext := got.Text(), want.Choices[0].Message.Content; text != wtext {
					t.Fatalf("seed %d, after chunk %d: Text() = %q, want %q", seed, i, text, wtext)
				}
			}
		}
		if g, w := comparable(got.Completion().ChatCompletion), comparable(want.ChatCompletion); g != w {
			t.Fatalf("seed %d: accumulated\n%s\nwant\n%s\nchunks:\n%s", seed, g, w, strings.Join(data, "\n"))
		}
		if text, wtext := got.Text(), want.Choices[0].Message.Content; text != wtext {
			t.Fatalf("seed %d: Text() = %q, want %q", seed, text, wtext)
		}
	}
}

// comparable returns c as JSON, without its usage (Add keeps the last the
// server reported, not openai-go's sum) and its choices' finish reasons
// (Completion derives its own: see lengthFinish), with its choices'
// roles as they are held, and with its choices copied, so that c's own
// are left as they are.
func comparable(c openai.ChatCompletion) string {
	c.Usage = openai.CompletionUsage{}
	c.Choices = append([]openai.ChatCompletionChoice(nil), c.Choices...)
	for i := range c.Choices {
		c.Choices[i].FinishReason = ""
	}
	b, _ := json.Marshal(c)
	for _, ch := range c.Choices { // a constant's JSON is its constant, whatever it holds
		b = fmt.Appendf(b, " role %q", string(ch.Message.Role))
	}
	return string(b)
}
