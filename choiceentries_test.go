package tokenpace_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// entries returns a chunk's data event holding one entry of choice 0 per
// piece, the last finished with finish when it is set: FastDeploy's chunk
// for a request with max_streaming_response_tokens
// (fastdeploy/entrypoints/openai/serving_chat.py,
// chat_completion_stream_generator).
func entries(finish string, pieces ...string) string {
	var b strings.Builder
	for i, p := range pieces {
		if i > 0 {
			b.WriteByte(',')
		}
		f := ""
		if finish != "" && i == len(pieces)-1 {
			f = `,"finish_reason":"` + finish + `"`
		}
		b.WriteString(`{"index":0,"delta":{"content":"` + p + `"}` + f + `}`)
	}
	return `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[` + b.String() + "]}\n\n"
}

// TestChoiceEntriesCountedWithoutUsage: several tokens a chunk as several
// entries of the same choice, and no usage chunk: the caller gets the
// whole text, each chunk is one arrival (ITL per chunk) and each entry one
// output token (TPOT per token).
func TestChoiceEntriesCountedWithoutUsage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		body := entries("", "Latency", " is", " the") + entries("", " time", " a", " request") +
			entries("stop", " waits", ".", "") + "data: [DONE]\n\n"
		url, hc := serve(t, sseBody(body))
		s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("m", 10))
		const want = "Latency is the time a request waits."
		if got := readAll(t, s); got != want || s.Err() != nil {
			t.Fatalf("read %q, Err() = %v; want %q, nil", got, s.Err(), want)
		}
		if got := s.Accumulated().Choices[0].Message.Content; got != want {
			t.Errorf("Accumulated() = %q, want %q", got, want)
		}
		tm := s.Timing()
		if tm.OutputChunks != 3 || tm.OutputTokens != 8 || tm.UsageReported || tm.FinishReason != "stop" {
			t.Errorf("Timing: %d chunks, %d tokens (reported %v), finish %q; want 3, 8 (false), \"stop\"",
				tm.OutputChunks, tm.OutputTokens, tm.UsageReported, tm.FinishReason)
		}
	})
}

// TestChoiceEntriesBounded: entries of the same choice are bounded as a
// request's n bounds choices, at 128 a chunk.
func TestChoiceEntriesBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		many := make([]string, 129)
		for i := range many {
			many[i] = "x"
		}
		body := chunk("c", "first ", "", "") + entries("", many...) + chunk("c", "", "stop", "") + "data: [DONE]\n\n"
		url, hc := serve(t, sseBody(body))
		s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("m", 10))
		if got := readAll(t, s); got != "first " {
			t.Errorf("read %q, want %q", got, "first ")
		}
		checkKind(t, s.Err(), tokenpace.KindTooLarge)
	})
}
