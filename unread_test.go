package tokenpace_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// TestUnreadChunksBounded: a caller that stops reading while a long
// response streams in holds the response back instead of queueing it all
// in memory; once it reads again, every token arrives, in order. Chunks
// that waited in the connection are stamped when the reader resumed.
func TestUnreadChunksBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 20000 // ~3 MB of event data, over the 1 MiB bound
		c := simClient(t, []simulate.Option{
			simulate.WithModel("m", &simulate.Fixed{TTFT: 10 * msec, ITL: 10 * time.Microsecond}),
			replyWords(n),
		})
		s := c.NewStreaming(context.Background(), chat("m", n))
		time.Sleep(3 * time.Second) // the caller does other work; the server is done by now
		resumed := time.Now()
		var b strings.Builder
		for s.Next() {
			for _, ch := range s.Current().Choices {
				b.WriteString(ch.Delta.Content)
			}
		}
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		s.Close()
		if got, want := b.String(), words(1, n); got != want {
			t.Fatalf("content has %d bytes, want the %d bytes of words(1, %d)", len(got), len(want), n)
		}
		tm := s.Timing()
		if len(tm.Chunks) != n {
			t.Fatalf("len(Chunks) = %d, want %d", len(tm.Chunks), n)
		}
		early := 0
		for _, at := range tm.Chunks {
			if at.Before(resumed) {
				early++
			}
		}
		// Each chunk is well over 100 bytes of event data; what was
		// decoded before the caller resumed stays near the bound.
		if early == n || early*100 > 2<<20 {
			t.Errorf("chunks decoded while the caller did not read = %d of %d, want a bounded number", early, n)
		}
	})
}
