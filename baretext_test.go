package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestBareLastLineNotText: a last line with no field and no line break
// is read as the server's words only when it is a line of text, as xLLM
// and llama.cpp's router write their failures (see xllm_test.go), by the
// rule an event's data of plain text is read with: it begins with a
// letter, is no JSON, and is at most a short message long. A line cut
// mid-way by a reset (an unframed JSON object of a relay, the name of
// llama.cpp's error field before its colon), binary bytes or a line of megabytes is no message:
// the stream is cut, its text kept, as any stream that ends without its
// end. Before, each became an error event whose message was the line,
// megabytes of it held by the caller's error.
func TestBareLastLineNotText(t *testing.T) {
	const chunk = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hello\"},\"finish_reason\":null}]}\n\n"
	for _, tc := range []struct {
		name, last string
		kind       tokenpace.ErrorKind
		message    string
	}{
		{"xLLM's words", "Request aborted due to scheduler pause", tokenpace.KindErrorEvent, "Request aborted due to scheduler pause"},
		{"an unframed chunk cut", `{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" wor`, tokenpace.KindTruncated, ""},
		{"a relay's envelope cut", `{"src":"llama-swap","err`, tokenpace.KindTruncated, ""},
		{"an error field's name cut", "erro", tokenpace.KindTruncated, ""},
		{"binary bytes", "\x1f\x8b\x08\x00\xff\xfe", tokenpace.KindTruncated, ""},
		{"a line of 2 MiB", strings.Repeat("a", 2<<20), tokenpace.KindTruncated, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Content-Type", "text/event-stream")
					_, _ = w.Write([]byte(chunk + tc.last))
				}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				s := c.NewStreaming(context.Background(), chat("m", 64))
				text := readAll(t, s)
				var se *tokenpace.StreamError
				if text != "Hello" || !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindErrorEvent && se.Kind != tokenpace.KindTruncated {
					t.Fatalf("text %q, Err() = %v; want \"Hello\" and an error event or a truncation", text, s.Err())
				}
				var ae *openai.Error
				switch {
				case se.Kind != tc.kind:
					t.Errorf("Err() = %v (kind %v, a message of %d bytes); want kind %v", trimmed(s.Err()), se.Kind, messageLen(s.Err()), tc.kind)
				case tc.message != "" && (!errors.As(s.Err(), &ae) || ae.Message != tc.message):
					t.Errorf("Err() = %v; want the message %q", s.Err(), tc.message)
				}
			})
		})
	}
}

// trimmed is err's text, cut to 200 bytes for a test's message.
func trimmed(err error) string {
	s := err.Error()
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// messageLen is the length of the message of the server's error err
// wraps; 0 for none.
func messageLen(err error) int {
	var ae *openai.Error
	if !errors.As(err, &ae) {
		return 0
	}
	return len(ae.Message)
}
