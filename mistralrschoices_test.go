package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestMistralRsChoicesStreamed: mistral.rs streams a request for n > 1
// choices by gathering each step's entry of every choice, and sends a
// chunk only once it holds n of them (mistralrs-core/src/sequence.rs,
// maybe_send_streaming_response): while every choice runs, a chunk holds
// one entry of each; once one has finished, the entries of those that
// run on pair up in one chunk (two of index 1), and the last of an odd
// number never leaves the server, nor does [DONE] (the streamer writes it
// only after a chunk whose every entry finishes). The usage, on the chunk
// the last choice ends, is that choice's alone: the prompt once and its
// own output (pipeline/sampling.rs takes the group's usage as the
// sequence that finished set it, Sequence::update_time_info). Through a
// Client and a Router, every choice comes whole with its finish reason;
// the output counted, in Timing and Accumulated().Usage, is every
// choice's, one token an entry for the choices the usage leaves out (the
// fixture's: 4 + 4 tokens, and 3 + 5 with the EOS); a stream whose last
// entry stayed behind is cut, KindTruncated, its text kept.
func TestMistralRsChoicesStreamed(t *testing.T) {
	for _, tc := range []twoChoices{
		{"mistralrs-2026-chat-n2-stream.jsonl", "Hi! How are", "Hello there, friend", "length", "length", 8, false},
		{"mistralrs-2026-chat-n2-apart-stream.jsonl", "Hi!", "Hello there, friend!", "stop", "length", 8, false},
		{"mistralrs-2026-chat-n2-apart-odd-stream.jsonl", "Hi!", "Hello there, my friend", "stop", "", 0, true},
	} {
		t.Run(tc.fixture, func(t *testing.T) { wantTwoChoices(t, "tiny", 6, tc) })
	}
}

// twoChoices is what a replayed stream of n = 2 choices gives its caller:
// each choice's text and finish reason, the output tokens counted, or
// that it is cut (KindTruncated).
type twoChoices struct {
	fixture      string
	text0, text1 string
	fin0, fin1   string
	output       int
	cut          bool
}

// wantTwoChoices replays tc.fixture, a chat stream of 2 choices of model
// with usage, to a Client and a Router asking maxTokens, and checks that
// each caller gets tc: the choices' texts and finish reasons as read and
// in Accumulated(), and, unless cut, 9 prompt tokens and tc.output output
// tokens in Timing and in Accumulated().Usage.
func wantTwoChoices(t *testing.T, model string, maxTokens int, tc twoChoices) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, http.HandlerFunc(replay(loadRecording(t, tc.fixture))))
		c := tokenpace.NewClient(openaiClient(url, hc))
		rt, err := tokenpace.NewRouter(c, tokenpace.Policy{}, route(model))
		if err != nil {
			t.Fatal(err)
		}
		req := chat(model, maxTokens)
		req.N = openai.Int(2)
		req.StreamOptions.IncludeUsage = openai.Bool(true)
		for name, s := range map[string]*tokenpace.Stream[openai.ChatCompletionChunk]{
			"Client": c.NewStreaming(context.Background(), req),
			"Router": rt.NewStreaming(context.Background(), req),
		} {
			texts, fins := map[int64]string{}, map[int64]string{}
			for s.Next() {
				for _, ch := range s.Current().Choices {
					texts[ch.Index] += ch.Delta.Content
					if ch.FinishReason != "" {
						fins[ch.Index] = ch.FinishReason
					}
				}
			}
			s.Close()
			if texts[0] != tc.text0 || texts[1] != tc.text1 || fins[0] != tc.fin0 || fins[1] != tc.fin1 {
				t.Errorf("%s, %s: choices %q (%s) and %q (%s); want %q (%s) and %q (%s)", tc.fixture, name,
					texts[0], fins[0], texts[1], fins[1], tc.text0, tc.fin0, tc.text1, tc.fin1)
			}
			acc := s.Accumulated()
			if len(acc.Choices) != 2 || acc.Choices[0].Message.Content != tc.text0 || acc.Choices[1].Message.Content != tc.text1 ||
				string(acc.Choices[0].FinishReason) != tc.fin0 || string(acc.Choices[1].FinishReason) != tc.fin1 {
				t.Errorf("%s, %s: Accumulated() choices %+v; want %q and %q", tc.fixture, name, acc.Choices, tc.text0, tc.text1)
			}
			var se *tokenpace.StreamError
			if tc.cut {
				if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindTruncated {
					t.Errorf("%s, %s: err %v; want KindTruncated", tc.fixture, name, s.Err())
				}
				continue
			}
			tm := s.Timing()
			if s.Err() != nil || !tm.UsageReported || tm.PromptTokens != 9 || tm.OutputTokens != tc.output {
				t.Errorf("%s, %s: err %v, usage %v, %d prompt and %d output tokens; want nil, 9 and %d", tc.fixture, name, s.Err(), tm.UsageReported, tm.PromptTokens, tm.OutputTokens, tc.output)
			}
			if u := acc.Usage; u.PromptTokens != 9 || u.CompletionTokens != int64(tc.output) || u.TotalTokens != int64(9+tc.output) {
				t.Errorf("%s, %s: Accumulated().Usage %d prompt, %d output, %d total; want 9, %d, %d", tc.fixture, name, u.PromptTokens, u.CompletionTokens, u.TotalTokens, tc.output, 9+tc.output)
			}
		}
	})
}
