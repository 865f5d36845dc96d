package tokenpace_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
)

// chatRecording is a chat stream of the given deltas (JSON objects), one
// every 10 ms from 100 ms, then a finish chunk and usage.
func chatRecording(deltas []string, usage string) recording {
	rec := recording{Status: 200, HeadersMS: 5, Headers: map[string]string{"Content-Type": "text/event-stream"}}
	chunk := func(delta, finish string) string {
		return `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}` + "\n\n"
	}
	at := 100.0
	for _, d := range deltas {
		rec.Reads = append(rec.Reads, recordedRead{TMS: at, Data: chunk(d, "null")})
		at += 10
	}
	rec.Reads = append(rec.Reads,
		recordedRead{TMS: at, Data: chunk(`{}`, `"stop"`)},
		recordedRead{TMS: at, Data: `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":` + usage + "}\n\ndata: [DONE]\n\n"})
	return rec
}

// TestTPOTLeavesOutHiddenReasoning: a reasoning model that does not show
// its reasoning (OpenAI's: no text, or a summary of it) spends its
// reasoning tokens before its first token, and its usage counts them in
// the output: TPOT over every output token came out 10 times too fast (5
// chunks 10 ms apart, 50 tokens of which 45 reasoning: 0.8 ms). It now
// leaves them out; a server that streams its reasoning text counts it.
func TestTPOTLeavesOutHiddenReasoning(t *testing.T) {
	content := func(s string) string { return fmt.Sprintf(`{"content":%q}`, s) }
	reasoning := func(s string) string { return fmt.Sprintf(`{"reasoning_content":%q}`, s) }
	for _, tc := range []struct {
		name      string
		deltas    []string
		usage     string
		tokens    int
		reasoning int
		tpot      time.Duration
	}{
		{"hidden reasoning", []string{content("a"), content("b"), content("c"), content("d"), content("e")},
			`{"prompt_tokens":10,"completion_tokens":50,"total_tokens":60,"completion_tokens_details":{"reasoning_tokens":45}}`,
			50, 45, 10 * time.Millisecond},
		{"reasoning streamed", []string{reasoning("th"), reasoning("ink"), reasoning("ing"), content("a"), content("b")},
			`{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"completion_tokens_details":{"reasoning_tokens":3}}`,
			5, 3, 10 * time.Millisecond},
		{"no reasoning", []string{content("a"), content("b"), content("c"), content("d"), content("e")},
			`{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}`,
			5, 0, 10 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, replay(chatRecording(tc.deltas, tc.usage)))
				s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("m", 100))
				readAll(t, s)
				tm := s.Timing()
				if tm.OutputTokens != tc.tokens || tm.ReasoningTokens != tc.reasoning || tm.TPOT() != tc.tpot {
					t.Errorf("output tokens %d (reasoning %d), TPOT %v; want %d (%d), %v",
						tm.OutputTokens, tm.ReasoningTokens, tm.TPOT(), tc.tokens, tc.reasoning, tc.tpot)
				}
			})
		})
	}
}

// TestResponseTPOTLeavesOutHiddenReasoning: the same for a Responses
// stream whose reasoning comes as a summary, as OpenAI's does: its first
// token is the summary's, after the reasoning.
func TestResponseTPOTLeavesOutHiddenReasoning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b eventsSSE
		writeAnswer(&b, "resp_1", "rs_1", "msg_1", []string{"Think", "ing"}, []string{"Hel", "lo", " there"},
			`{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":50,"output_tokens_details":{"reasoning_tokens":45},"total_tokens":60}`, 10)
		url, hc := serve(t, replay(b.rec()))
		s := tokenpace.NewClient(openaiClient(url, hc)).NewResponseStreaming(context.Background(), respond("m", 100))
		readEvents(s)
		tm := s.Timing()
		// 5 chunks (2 of the summary, 3 of text) over 40 ms; 5 tokens besides
		// the reasoning.
		if span := tm.LastChunk.Sub(tm.Chunks[0]); tm.ReasoningTokens != 45 || tm.TPOT() != span/4 {
			t.Errorf("reasoning tokens %d, TPOT %v over %v; want 45, %v", tm.ReasoningTokens, tm.TPOT(), span, span/4)
		}
	})
}
