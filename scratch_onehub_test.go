package tokenpace_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

func TestScratchPlainData(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, script("text/event-stream", chunk("c", "hello", "", ""), "data: unexpected EOF\n\n"))
		c := tokenpace.NewClient(openaiClient(url, hc))
		s := c.NewStreaming(context.Background(), chat("m", 10))
		text := readAll(t, s)
		t.Logf("text %q err %v", text, s.Err())
	})
}
