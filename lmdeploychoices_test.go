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

// TestLMDeployChoicesFannedOut: LMDeploy streams a request for n > 1
// choices by running one single-choice generation per choice and
// draining their chunks together (InternLM/lmdeploy#4841, August 2026;
// lmdeploy/serve/openai/chat_completions/fanout.py, _collate_streams):
// what is ready at once goes out in shared chunks, the Nth ready delta of
// each choice in the Nth chunk, so that a chunk may hold one choice's
// entry alone and one read two chunks (the last text of choice 1 and its
// finish). Every chunk is the child's, re-indexed, under one id; each
// child's usage is kept back and one usage chunk sent after the last
// finish, the prompt counted once and the output summed. A child that
// fails (its error event has no choice, which the fan-out refuses with a
// RuntimeError) ends the body without a word once the stream has begun:
// uvicorn leaves the chunked body unterminated. Through a Client and a
// Router, both choices come whole with their finish reasons and the
// summed usage; a fan-out cut short is KindTruncated, its text kept.
func TestLMDeployChoicesFannedOut(t *testing.T) {
	for _, tc := range []struct {
		fixture      string
		text0, text1 string
		fin0, fin1   string
		cut          bool
	}{
		{"lmdeploy-2026-chat-n2-stream.jsonl", "Hi! How are", "Hello there!", "length", "stop", false},
		{"lmdeploy-2026-chat-n2-child-error.jsonl", "Hi! How", "Hello there", "", "", true},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, http.HandlerFunc(replay(loadRecording(t, tc.fixture))))
				c := tokenpace.NewClient(openaiClient(url, hc))
				rt, err := tokenpace.NewRouter(c, tokenpace.Policy{}, route("Qwen3-8B"))
				if err != nil {
					t.Fatal(err)
				}
				req := chat("Qwen3-8B", 4)
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
						t.Errorf("%s: choices %q (%s) and %q (%s); want %q (%s) and %q (%s)", name,
							texts[0], fins[0], texts[1], fins[1], tc.text0, tc.fin0, tc.text1, tc.fin1)
					}
					acc := s.Accumulated()
					if len(acc.Choices) != 2 || acc.Choices[0].Message.Content != tc.text0 || acc.Choices[1].Message.Content != tc.text1 {
						t.Errorf("%s: Accumulated() choices %+v; want %q and %q", name, acc.Choices, tc.text0, tc.text1)
					}
					if tc.cut {
						var se *tokenpace.StreamError
						if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindTruncated {
							t.Errorf("%s: err %v; want KindTruncated", name, s.Err())
						}
						continue
					}
					if string(acc.Choices[0].FinishReason) != tc.fin0 || string(acc.Choices[1].FinishReason) != tc.fin1 {
						t.Errorf("%s: Accumulated() finish reasons %q and %q; want %q and %q", name,
							acc.Choices[0].FinishReason, acc.Choices[1].FinishReason, tc.fin0, tc.fin1)
					}
					tm := s.Timing()
					if s.Err() != nil || !tm.UsageReported || tm.PromptTokens != 9 || tm.OutputTokens != 7 {
						t.Errorf("%s: err %v, usage %v, %d prompt and %d output tokens; want nil, 9 and 7", name, s.Err(), tm.UsageReported, tm.PromptTokens, tm.OutputTokens)
					}
					if u := acc.Usage; u.PromptTokens != 9 || u.CompletionTokens != 7 || u.TotalTokens != 16 {
						t.Errorf("%s: Accumulated().Usage %d prompt, %d output, %d total; want 9, 7, 16", name, u.PromptTokens, u.CompletionTokens, u.TotalTokens)
					}
				}
			})
		})
	}
}
