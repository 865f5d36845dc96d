package tokenpace_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestErrorEventNamedAfterData: a stream's first event, a failure whose
// "event: error" line follows its data line (the event-stream format
// takes an event's fields in any order), reaches the caller as the
// server's error with its message, as when the name comes first; not as
// an empty chunk and a cut stream.
func TestErrorEventNamedAfterData(t *testing.T) {
	const data = `{"code":422,"details":"the request was blocked"}`
	for name, event := range map[string]string{
		"named first":                      "event: error\ndata: " + data + "\n\n",
		"named after":                      "data: " + data + "\nevent: error\n\n",
		"named after, CR":                  "data: " + data + "\revent: error\r\r",
		"named after, CRLF, an id between": "data: " + data + "\r\nid: 1\r\nevent: error\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, script("text/event-stream", event))
				c := tokenpace.NewClient(openaiClient(url, hc))
				s := c.NewStreaming(context.Background(), chat("m", 10))
				drain(t, s, 0)
				var se *tokenpace.StreamError
				var ae *openai.Error
				if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindErrorEvent || !errors.As(s.Err(), &ae) || ae.Message != "the request was blocked" {
					t.Errorf("Err() = %v, want a KindErrorEvent with the server's message", s.Err())
				}
			})
		})
	}
}
