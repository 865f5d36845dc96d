package tokenpace_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
)

// TestSurrogateHalfAloneInAChunk streams an answer cut one UTF-16 code
// unit a chunk, as a relay that cuts text with a regular expression
// without the u flag (/./) writes it: the emoji's first half is a chunk
// of its own, "\ud83d". The caller reads that chunk with no text, the
// emoji whole in the next, and its Timing counts the first output, and
// each output chunk, where the text is: the first token came with the
// second chunk, at 120 ms (before: a first chunk "�" at 100 ms, and a
// second "�").
func TestSurrogateHalfAloneInAChunk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := func(content, finish string) string {
			f := "null"
			if finish != "" {
				f = `"` + finish + `"`
			}
			return `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"` + content + `"},"finish_reason":` + f + `}]}` + "\n\n"
		}
		rec := recording{Status: 200, HeadersMS: 5, Headers: map[string]string{"Content-Type": "text/event-stream"}, Reads: []recordedRead{
			{TMS: 100, Data: ev(`\ud83d`, "")},
			{TMS: 120, Data: ev(`\ude00`, "")},
			{TMS: 140, Data: ev(` hi`, "")},
			{TMS: 160, Data: ev(``, "stop") + "data: [DONE]\n\n"},
		}}
		url, hc := serve(t, replay(rec))
		s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("m", 16))
		var chunks []string
		for s.Next() {
			for _, ch := range s.Current().Choices {
				chunks = append(chunks, ch.Delta.Content)
				var raw string // the chunk's JSON, as Current() gives it, says the same
				if err := json.Unmarshal([]byte(ch.Delta.JSON.Content.Raw()), &raw); err != nil || raw != ch.Delta.Content {
					t.Errorf("chunk %q: its JSON %s", ch.Delta.Content, ch.Delta.JSON.Content.Raw())
				}
			}
		}
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		if want := []string{"", "😀", " hi", ""}; !slices.Equal(chunks, want) {
			t.Errorf("chunks %q, want %q", chunks, want)
		}
		if got := s.Accumulated().Choices[0].Message.Content; got != "😀 hi" {
			t.Errorf("Accumulated() %q, want %q", got, "😀 hi")
		}
		tm := s.Timing()
		if tm.TTFT() != 120*time.Millisecond || tm.OutputChunks != 2 {
			t.Errorf("TTFT %v, %d output chunks; want 120ms and 2", tm.TTFT(), tm.OutputChunks)
		}
	})
}
