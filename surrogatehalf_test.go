package tokenpace_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
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

// TestSurrogateHalfBeforeContinuation cuts a stream after an event whose
// text ends with an emoji's first half, and a Router with Continue asks
// its second route to go on: the half held from the first route is not
// given to the second route's text (another server's answer, decoded
// apart), which the caller reads as that server sent it; the first
// route's half, with no second half after it, is dropped.
func TestSurrogateHalfBeforeContinuation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := func(content, finish string) string {
			f := "null"
			if finish != "" {
				f = `"` + finish + `"`
			}
			return `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"` + content + `"},"finish_reason":` + f + `}]}` + "\n\n"
		}
		cut := recording{Status: 200, HeadersMS: 5, Headers: map[string]string{"Content-Type": "text/event-stream"}, Reads: []recordedRead{
			{TMS: 100, Data: ev(`Hi \ud83d`, "")},
		}}
		rest := recording{Status: 200, HeadersMS: 5, Headers: map[string]string{"Content-Type": "text/event-stream"}, Reads: []recordedRead{
			{TMS: 100, Data: ev(`\ude00 there`, "")},
			{TMS: 120, Data: ev(``, "stop") + "data: [DONE]\n\n"},
		}}
		url, hc, _ := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			if strings.Contains(string(body), `"model":"a"`) {
				replay(cut)(w, r)
				return
			}
			replay(rest)(w, r)
		})
		router, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tokenpace.Policy{Continue: true}, route("a"), route("b"))
		if err != nil {
			t.Fatal(err)
		}
		s := router.NewStreaming(context.Background(), chat("a", 16))
		got := readAll(t, s)
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		if want := "Hi \uFFFD there"; got != want || s.Accumulated().Choices[0].Message.Content != want {
			t.Errorf("chunks %q, Accumulated() %q; want %q", got, s.Accumulated().Choices[0].Message.Content, want)
		}
	})
}
