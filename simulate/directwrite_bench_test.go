//go:build unix

package simulate

import (
	"io"
	"math/rand/v2"
	"net"
	"testing"
	"time"
)

// BenchmarkDirectChunk is the driver's work for one chunk of a stream
// handed over to it (ConnContext): the sink's hand-off check, the
// responder's count and format, chunked framing and the write to a real
// loopback connection, which a goroutine drains. One op is one chunk;
// allocs/op are the driver's allocations per chunk.
//
//	go test -run XXX -bench DirectChunk -benchmem ./simulate/
func BenchmarkDirectChunk(b *testing.B) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	server, err := l.Accept()
	if err != nil {
		b.Fatal(err)
	}
	defer server.Close()
	drained := make(chan struct{})
	go func() { io.Copy(io.Discard, client); close(drained) }()

	raw, err := server.(*net.TCPConn).SyscallConn()
	if err != nil {
		b.Fatal(err)
	}
	var counts directCounts
	var late lateness
	n := b.N + 1
	d := &directConn{c: server, raw: raw, count: &counts}
	d.writeFd = d.writePending
	r := &responder{
		out:      &output{late: &late, direct: d},
		f:        newChatFormat("chatcmpl-1", 1, "m", false),
		text:     generatedText(rand.New(rand.NewPCG(1, 2)), n),
		n:        n,
		stream:   true,
		per:      1,
		roleSent: true,
	}
	s := newSink()
	s.handOver(r)
	epoch := time.Now()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		at := time.Duration(i) * time.Microsecond
		s.push(Emission{ID: 1, At: at, Tokens: 1}, epoch.Add(at))
		if len(s.rest) > 0 {
			// The reader fell behind: finish the chunk as the handler
			// would.
			_, rest := s.take(nil)
			if !d.write(rest) {
				b.Fatal("write failed")
			}
			s.idle()
		}
	}
	b.StopTimer()
	server.Close()
	<-drained
}
