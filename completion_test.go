package tokenpace_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// fim returns streaming fill-in-the-middle params for model.
func fim(model, prompt, suffix string) openai.CompletionNewParams {
	return openai.CompletionNewParams{
		Model:  openai.CompletionNewParamsModel(model),
		Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String(prompt)},
		Suffix: openai.String(suffix),
	}
}

// readCompletion reads s to its end and returns the text of the first
// choice of its events and their arrival offsets from start.
func readCompletion(s *tokenpace.Stream[openai.Completion], start time.Time) (string, []time.Duration) {
	var text string
	var at []time.Duration
	for s.Next() {
		if ch := s.Current().Choices; len(ch) > 0 && ch[0].Text != "" {
			text += ch[0].Text
			at = append(at, time.Since(start))
		}
	}
	s.Close()
	return text, at
}

// A completion streams openai-go's events and is timed as chat is: TTFT to
// the first text, one chunk per text event, usage from the final event,
// which the Client asks for.
func TestCompletionStreaming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got simulate.ReplyInfo
		var rec record
		c := simClient(t, []simulate.Option{
			simulate.WithModel("m", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond}),
			simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) { got = ri; return "x := 1", true }),
		}, tokenpace.WithHooks(rec.hooks()))
		start := time.Now()
		s := c.NewCompletionStreaming(context.Background(), fim("m", "func f() {\n\t", "\n\treturn x\n}"))
		text, at := readCompletion(s, start)
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		if want := []time.Duration{100 * time.Millisecond, 110 * time.Millisecond, 120 * time.Millisecond}; text != "x := 1" || fmt.Sprint(at) != fmt.Sprint(want) {
			t.Errorf("text = %q at %v, want %q at %v", text, at, "x := 1", want)
		}
		if s.Text() != "x := 1" {
			t.Errorf("Text() = %q, want %q", s.Text(), "x := 1")
		}
		if got.Suffix != "\n\treturn x\n}" {
			t.Errorf("server saw suffix %q, want the params' suffix", got.Suffix)
		}
		tm := s.Timing()
		if tm.TTFT() != 100*time.Millisecond || len(tm.Chunks) != 3 || tm.TPOT() != 10*time.Millisecond {
			t.Errorf("TTFT, chunks, TPOT = %v, %d, %v, want 100ms, 3, 10ms", tm.TTFT(), len(tm.Chunks), tm.TPOT())
		}
		if !tm.UsageReported || tm.OutputTokens != 3 || tm.PromptTokens != 6 || tm.Model != "m" {
			t.Errorf("usage reported %v, output %d, prompt %d, model %q; want true, 3, 6, m",
				tm.UsageReported, tm.OutputTokens, tm.PromptTokens, tm.Model)
		}
		if tm.API != tokenpace.APICompletions || !tm.Stream {
			t.Errorf("API, Stream = %q, %v, want %q, true", tm.API, tm.Stream, tokenpace.APICompletions)
		}
		if len(rec.done) != 1 || rec.done[0] != tm {
			t.Errorf("Done hook saw %d timings, want the stream's one", len(rec.done))
		}
	})
}

// An error event ends a completion with a typed error; the text before it
// stays readable.
func TestCompletionStreamingErrorEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := simClient(t, []simulate.Option{
			simulate.WithModel("m", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond}),
			replyWords(5),
		})
		s := c.NewCompletionStreaming(context.Background(), fim("m", "a", "b"), withFault("error-event;after=2"))
		text, _ := readCompletion(s, time.Now())
		checkKind(t, s.Err(), tokenpace.KindErrorEvent)
		if text != words(1, 2) || s.Text() != text {
			t.Errorf("text = %q, Text() = %q, want %q", text, s.Text(), words(1, 2))
		}
		if tm := s.Timing(); len(tm.Chunks) != 2 {
			t.Errorf("len(Timing().Chunks) = %d, want 2", len(tm.Chunks))
		}
	})
}

// Codestral's fill-in-the-middle endpoint answers a whole completions
// request in the shape of a chat completion: its message's content is
// the completion's text.
func TestWholeCompletionChatShaped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, jsonAnswer(`{"id":"8c1f","object":"chat.completion","created":1,"model":"codestral-2508","choices":[{"index":0,"message":{"role":"assistant","content":"(a, b):\n    c = a + b"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":11,"total_tokens":20}}`))
		res, err := tokenpace.NewClient(openaiClient(url, hc)).NewCompletion(context.Background(),
			openai.CompletionNewParams{Model: "codestral-2508", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("def add")}, Suffix: openai.String("\n    return c")})
		if err != nil || res.Choices[0].Text != "(a, b):\n    c = a + b" {
			t.Errorf("NewCompletion() = %+v, %v; want the message's content as the text", res, err)
		}
	})
}
