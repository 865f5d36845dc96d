package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestEventCutMidBodyMalformed: an event whose JSON ends before its value
// is a cut answer only when the body ends after it, as Targon's hub ends
// it (see the fixture targon-fallback-timeout-partial-event). A server
// that writes a line break unescaped in a chunk's text splits the event:
// its data stops inside a string, the rest a line the stream's framing
// drops, and the body goes on with its next chunks and [DONE]. That is
// the server's malformed output, not a cut answer; before, it read as
// KindTruncated "event cut short".
func TestEventCutMidBodyMalformed(t *testing.T) {
	const chunk = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hello\"},\"finish_reason\":null}]}\n\n"
	const split = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" line one\nline two\"},\"finish_reason\":null}]}\n\n"
	const last = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	const cut = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" on\n\n\n\n"
	for _, tc := range []struct {
		name, body string
		kind       tokenpace.ErrorKind
	}{
		{"a line break unescaped, the body going on", chunk + split + last, tokenpace.KindMalformed},
		{"the last event cut, the body ended", chunk + cut, tokenpace.KindTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Content-Type", "text/event-stream")
					_, _ = w.Write([]byte(tc.body))
				}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				s := c.NewStreaming(context.Background(), chat("m", 64))
				text := readAll(t, s)
				var se *tokenpace.StreamError
				if text != "Hello" || !errors.As(s.Err(), &se) || se.Kind != tc.kind {
					t.Errorf("text %q, Err() = %v; want \"Hello\" and kind %v", text, s.Err(), tc.kind)
				}
			})
		})
	}
}
