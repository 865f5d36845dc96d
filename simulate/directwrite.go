package simulate

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// Direct writes: a streaming response's chunks written straight to its TCP
// connection by the model's driver, at the wake-up that finds them due,
// instead of being handed to the request's goroutine, which would wake up,
// write through net/http's buffers and flush, once per chunk.
//
// The driver writes each chunk once, without waiting: whatever a full
// socket buffer leaves unwritten goes to the request's goroutine, which
// writes it and the chunks after it as usual, so a slow client never holds
// up the driver. The bytes on the wire are the ones net/http would write
// for the same chunk: its chunked framing, one HTTP chunk per SSE chunk.
// net/http's own buffers are flushed before the driver writes, and the
// request's goroutine writes again only after the driver has stopped, so
// the two never interleave.

// connKey is the context key of the connection ConnContext records.
type connKey struct{}

// ConnContext records c in ctx for the requests it serves; set it as
// http.Server.ConnContext:
//
//	hs := &http.Server{Handler: s, ConnContext: s.ConnContext}
//
// With it, the server writes the chunks of a streaming response over plain
// HTTP/1.1 on TCP straight to the connection from the model's driver
// goroutine, which costs less CPU per chunk; the bytes the client receives
// are the same. Without it, or over TLS, HTTP/2, another kind of
// connection, with WithRTT, WithBuffering or a fault, every chunk goes
// through the http.ResponseWriter. The chunks bypass the connection's own
// Write method (they go to its file descriptor), so set ConnContext only
// where that method adds nothing: a *net.TCPConn, or one JSONErrorPages
// wraps. The chunks bypass the http.ResponseWriter too: do not set it when
// the Server is wrapped in middleware that transforms or counts the body
// (compression, byte counters), which would then miss the chunks.
// StartLoopback sets it.
func (s *Server) ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// directConn is a connection a driver may write chunks to.
type directConn struct {
	c     net.Conn // for the request's goroutine's (blocking) writes
	raw   syscall.RawConn
	count *directCounts

	// tryWrite's state, kept here so that a write allocates nothing:
	// writeFd (made once) writes pending and sets wrote.
	writeFd func(fd uintptr) bool
	pending []byte
	wrote   int
}

// directConnOf returns the connection r arrived on if the server may write
// r's stream to it directly, or nil: plain HTTP/1.1 (whose streams net/http
// frames as chunked) over a connection that exposes its file descriptor.
func directConnOf(r *http.Request, count *directCounts) *directConn {
	if r.TLS != nil || r.ProtoMajor != 1 || r.ProtoMinor < 1 {
		return nil
	}
	c, _ := r.Context().Value(connKey{}).(net.Conn)
	if e, ok := c.(errorPageConn); ok {
		// Only net/http's own error pages change on the way out; a chunk
		// never starts as one.
		c = e.Conn
	}
	sc, ok := c.(syscall.Conn)
	if !ok || !canTryWrite {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	d := &directConn{c: c, raw: raw, count: count}
	d.writeFd = d.writePending
	return d
}

// tryWrite writes as much of b as the socket takes now, in one system call
// that never waits, and returns what is left: nil when all of b went out.
// An error leaves all that was not written, for a blocking write to report.
func (d *directConn) tryWrite(b []byte) []byte {
	d.pending, d.wrote = b, 0
	d.raw.Write(d.writeFd)
	n := d.wrote
	d.pending = nil
	if n >= len(b) {
		d.count.whole.Add(1)
		return nil
	}
	d.count.partial.Add(1)
	return b[n:]
}

// writePending is the function tryWrite has the connection call with its
// descriptor: one write of pending that never waits.
func (d *directConn) writePending(fd uintptr) bool {
	d.wrote = writeOnce(fd, d.pending)
	return true
}

// write writes b, waiting as long as the connection needs, and reports
// whether it all went out.
func (d *directConn) write(b []byte) bool {
	_, err := d.c.Write(b)
	return err == nil
}

// appendChunk appends data in HTTP/1.1 chunked framing, as net/http's
// chunk writer frames one flushed write: the length in lower-case hex,
// CRLF, the data, CRLF.
func appendChunk(dst, data []byte) []byte {
	dst = strconv.AppendUint(dst, uint64(len(data)), 16)
	dst = append(dst, '\r', '\n')
	dst = append(dst, data...)
	return append(dst, '\r', '\n')
}

// directCounts counts the driver's direct writes, for GET /metrics. It is
// safe for concurrent use.
type directCounts struct {
	whole   atomic.Int64 // chunks the connection took at once
	partial atomic.Int64 // chunks it did not, finished by the handler
}

// write appends the counts in the Prometheus text format.
func (d *directCounts) write(b *strings.Builder) {
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s counter\n%s{written=\"whole\"} %d\n%s{written=\"partial\"} %d\n",
		directMetric, "Stream chunks the model's driver wrote straight to the connection (Server.ConnContext): whole, or partly, the rest left to the request's goroutine.",
		directMetric, directMetric, d.whole.Load(), directMetric, d.partial.Load())
}

const directMetric = "tokenpace_sim_direct_chunks_total"
