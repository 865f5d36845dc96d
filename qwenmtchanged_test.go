package tokenpace_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestQwenMTChangedTextIsTruncated: DashScope streams qwen-mt-plus's
// translation whole so far, each chunk the text before it and more
// (testdata/conformance/dashscope-qwen-mt-whole-so-far.jsonl). A chunk
// that changes text already given, here "didn't" to "did not", cannot be
// read as a piece added: read as deltas from there on, every later chunk
// added the whole translation again ("I didn't laughI did not laugh
// after watching.I did not laugh after watching this video.", nil
// error). The stream now ends there, cut, the text so far kept, and a
// Router carries it on.
func TestQwenMTChangedTextIsTruncated(t *testing.T) {
	const kept = "I didn't laugh"
	var body strings.Builder
	for i, text := range []string{"I", "I didn't", kept, "I did not laugh after watching.", "I did not laugh after watching this video."} {
		finish := "null"
		if i == 4 {
			finish = `"stop"`
		}
		fmt.Fprintf(&body, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"qwen-mt-plus","choices":[{"index":0,"delta":{"content":%q},"finish_reason":%s}]}`+"\n\n", text, finish)
	}
	body.WriteString("data: [DONE]\n\n")
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, sseBody(body.String()))
		s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("qwen-mt-plus", 64))
		if got := readAll(t, s); got != kept {
			t.Errorf("Client: read %q, want %q", got, kept)
		}
		if got := s.Accumulated().Choices[0].Message.Content; got != kept {
			t.Errorf("Client: Accumulated() = %q, want %q", got, kept)
		}
		if e := checkKind(t, s.Err(), tokenpace.KindTruncated); e != nil && e.Detail != "text sent whole so far changed" {
			t.Errorf("Client: Detail %q, want %q", e.Detail, "text sent whole so far changed")
		}

		rs := quirkRouter(t, sseBody(body.String())).NewStreaming(context.Background(), chat("first", 64))
		want := kept + extra
		if got := readAll(t, rs); got != want || rs.Err() != nil {
			t.Errorf("Router: read %q, Err() = %v; want %q, nil", got, rs.Err(), want)
		}
		if got := rs.Accumulated().Choices[0].Message.Content; got != want {
			t.Errorf("Router: Accumulated() = %q, want %q", got, want)
		}
	})
}
