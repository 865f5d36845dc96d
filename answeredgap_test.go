package tokenpace_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestChatGapAfterFinish: a chat answer whose every choice has finished,
// from a server slow to send [DONE] (or a proxy slow to end the body),
// breaches no budget: it is complete. Before, the Gap budget ran on past
// the finish, and with Continue the Router continued the finished answer,
// the caller reading "Hello more" with a nil error.
func TestChatGapAfterFinish(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := func(content, finish string) string {
			f := "null"
			if finish != "" {
				f = `"` + finish + `"`
			}
			return `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"` + content + `"},"finish_reason":` + f + `}]}` + "\n\n"
		}
		rec := recording{Status: 200, HeadersMS: 5, Headers: map[string]string{"Content-Type": "text/event-stream"}, Reads: []recordedRead{
			{TMS: 20, Data: ch("Hel", "")}, {TMS: 30, Data: ch("lo", "")}, {TMS: 40, Data: ch("", "stop")},
			{TMS: 45, Data: `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}` + "\n\n"},
			{TMS: 600, Data: "data: [DONE]\n\n"},
		}}
		other := recording{Status: 200, HeadersMS: 5, Headers: map[string]string{"Content-Type": "text/event-stream"}, Reads: []recordedRead{
			{TMS: 20, Data: ch(" more", "")}, {TMS: 30, Data: ch("", "stop")}, {TMS: 40, Data: "data: [DONE]\n\n"},
		}}
		r, bodies := servingRouter(t, tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Continue: true}, rec, other)
		s := r.NewStreaming(context.Background(), chat("m", 100))
		text := readAll(t, s)
		if err := s.Err(); err != nil || text != "Hello" || len(*bodies) != 1 {
			t.Errorf("Err() = %v, text %q, %d requests (kinds %v); want nil, %q, 1", err, text, len(*bodies), kinds(s.Timing()), "Hello")
		}
		if tm := s.Timing(); tm.OutputTokens != 2 || len(tm.Breaches) != 0 {
			t.Errorf("output tokens %d, breaches %v; want 2 (the usage), none", tm.OutputTokens, tm.Breaches)
		}
	})
}
