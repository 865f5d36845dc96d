package tokenpace

import (
	"context"
	"testing"
)

// BenchmarkExternal measures what waiting for a caller's Breaker or
// Limiter as code of the caller's (callerCode.run) costs per call, beside
// calling it inline.
//
//	go test -run '^$' -bench BenchmarkExternal -benchmem -count 3 .
func BenchmarkExternal(b *testing.B) {
	c := &call{ctx: context.Background(), closing: latch{ch: make(chan struct{})}}
	var n int
	f := func() { n++ }
	b.Run("inline", func(b *testing.B) {
		for b.Loop() {
			f()
		}
	})
	b.Run("external", func(b *testing.B) {
		for b.Loop() {
			c.code().run(f, nil)
		}
	})
}
