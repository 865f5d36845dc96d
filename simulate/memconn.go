package simulate

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// DefaultConnBuffer is how many bytes each direction of an in-memory
// connection holds before a writer blocks, like a socket's send buffer.
const DefaultConnBuffer = 256 << 10

// ErrListenerClosed is returned by MemListener.Accept and Dial once the
// listener is closed.
var ErrListenerClosed = errors.New("simulate: in-memory listener closed")

// MemListener is a net.Listener whose connections live in memory: Dial hands
// one end of a buffered connection to Accept. Unlike net.Pipe, each direction
// buffers up to a socket's worth of bytes, so a slow reader does not stall
// its peer's writes.
//
// Every goroutine, channel and timer it uses is created by the caller's
// goroutine or the connection's users, so a MemListener made inside a
// testing/synctest bubble runs on the bubble's virtual clock: create the
// listener, the server and the client inside the bubble, and close idle
// client connections and the server before the bubble ends.
//
// A MemListener is safe for concurrent use. Create one with NewMemListener.
type MemListener struct {
	conns  chan net.Conn
	done   chan struct{}
	once   sync.Once
	buffer int
}

// NewMemListener returns an open in-memory listener whose connections buffer
// DefaultConnBuffer bytes in each direction.
func NewMemListener() *MemListener {
	return &MemListener{
		conns:  make(chan net.Conn),
		done:   make(chan struct{}),
		buffer: DefaultConnBuffer,
	}
}

// Accept waits for the next Dial and returns the server's end of its
// connection.
func (l *MemListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, ErrListenerClosed
	}
}

// Close stops the listener: pending and later Accept and Dial calls fail.
// Connections already made stay open.
func (l *MemListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr returns the listener's address, "memory".
func (l *MemListener) Addr() net.Addr { return memAddr{} }

// DialContext connects to the listener; network and address are ignored, so
// it fits http.Transport.DialContext. It waits for Accept, ctx or Close.
func (l *MemListener) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := newMemConnPair(l.buffer)
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, ErrListenerClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Transport returns a new *http.Transport whose connections dial l. Close
// its idle connections (CloseIdleConnections) when done with it.
func (l *MemListener) Transport() *http.Transport {
	return &http.Transport{
		DialContext:         l.DialContext,
		ForceAttemptHTTP2:   false,
		MaxIdleConnsPerHost: 1024,
	}
}

// Client returns a new *http.Client over l.Transport().
func (l *MemListener) Client() *http.Client {
	return &http.Client{Transport: l.Transport()}
}

type memAddr struct{}

func (memAddr) Network() string { return "memory" }
func (memAddr) String() string  { return "memory" }

// newMemConnPair returns two connected ends, each direction buffering size
// bytes.
func newMemConnPair(size int) (*memConn, *memConn) {
	ab := newMemPipe(size)
	ba := newMemPipe(size)
	a := &memConn{r: ba, w: ab}
	b := &memConn{r: ab, w: ba}
	return a, b
}

// memPipe is one direction of a memConn: a bounded byte queue with a
// reader's and a writer's deadline.
type memPipe struct {
	mu       sync.Mutex
	buf      []byte // unread bytes are buf[off:]
	off      int
	size     int
	closed   bool          // the writer closed: reads drain then EOF
	broken   bool          // the reader closed: writes fail
	readable chan struct{} // signalled when bytes arrive or the pipe closes
	writable chan struct{} // signalled when room frees or the pipe breaks

	readDeadline, writeDeadline deadline
}

func newMemPipe(size int) *memPipe {
	return &memPipe{
		size:     size,
		readable: make(chan struct{}, 1),
		writable: make(chan struct{}, 1),
	}
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func (p *memPipe) read(b []byte) (int, error) {
	for {
		p.mu.Lock()
		if p.broken {
			p.mu.Unlock()
			return 0, net.ErrClosed
		}
		if len(p.buf) > p.off {
			n := copy(b, p.buf[p.off:])
			p.off += n
			if p.off == len(p.buf) {
				p.buf, p.off = p.buf[:0], 0 // keep the memory
			}
			p.mu.Unlock()
			signal(p.writable)
			return n, nil
		}
		if p.closed {
			p.mu.Unlock()
			return 0, io.EOF
		}
		p.mu.Unlock()
		if len(b) == 0 {
			return 0, nil
		}
		select {
		case <-p.readable:
		case <-p.readDeadline.expired():
			return 0, os.ErrDeadlineExceeded
		}
	}
}

func (p *memPipe) write(b []byte) (int, error) {
	written := 0
	for {
		p.mu.Lock()
		if p.closed || p.broken {
			p.mu.Unlock()
			return written, net.ErrClosed
		}
		room := p.size - (len(p.buf) - p.off)
		if room > 0 {
			n := min(room, len(b)-written)
			if p.off > 0 && len(p.buf)+n > cap(p.buf) {
				// Slide the unread bytes down rather than grow.
				p.buf = p.buf[:copy(p.buf, p.buf[p.off:])]
				p.off = 0
			}
			p.buf = append(p.buf, b[written:written+n]...)
			written += n
			p.mu.Unlock()
			signal(p.readable)
			if written == len(b) {
				return written, nil
			}
			continue
		}
		p.mu.Unlock()
		select {
		case <-p.writable:
		case <-p.writeDeadline.expired():
			return written, os.ErrDeadlineExceeded
		}
	}
}

// closeWrite ends the stream as seen by the reader, after what is buffered.
func (p *memPipe) closeWrite() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	signal(p.readable)
	signal(p.writable)
}

// closeRead makes the reader's end go away: writers fail, buffered bytes
// are dropped.
func (p *memPipe) closeRead() {
	p.mu.Lock()
	p.broken = true
	p.buf, p.off = nil, 0
	p.mu.Unlock()
	signal(p.readable)
	signal(p.writable)
}

// memConn is one end of an in-memory connection.
type memConn struct {
	r, w *memPipe
	once sync.Once
}

func (c *memConn) Read(b []byte) (int, error)  { return c.r.read(b) }
func (c *memConn) Write(b []byte) (int, error) { return c.w.write(b) }

// Close ends both directions: the peer reads what was written, then EOF.
func (c *memConn) Close() error {
	c.once.Do(func() {
		c.w.closeWrite()
		c.r.closeRead()
	})
	return nil
}

func (c *memConn) LocalAddr() net.Addr  { return memAddr{} }
func (c *memConn) RemoteAddr() net.Addr { return memAddr{} }

func (c *memConn) SetDeadline(t time.Time) error {
	c.r.readDeadline.set(t)
	c.w.writeDeadline.set(t)
	return nil
}

func (c *memConn) SetReadDeadline(t time.Time) error {
	c.r.readDeadline.set(t)
	return nil
}

func (c *memConn) SetWriteDeadline(t time.Time) error {
	c.w.writeDeadline.set(t)
	return nil
}

// deadline is a resettable point in time whose expired channel is closed
// once the time has come. The zero value has no deadline. One timer serves
// every setting.
type deadline struct {
	mu    sync.Mutex
	at    time.Time     // zero: none
	timer *time.Timer   // fires expire at at; nil until first needed
	ch    chan struct{} // closed when expired; replaced when reset
}

// set moves the deadline to t; the zero t removes it.
func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.at = t
	if d.ch == nil || isClosed(d.ch) {
		d.ch = make(chan struct{})
	}
	if t.IsZero() {
		if d.timer != nil {
			d.timer.Stop()
		}
		return
	}
	wait := time.Until(t)
	switch {
	case wait <= 0:
		close(d.ch)
		if d.timer != nil {
			d.timer.Stop()
		}
	case d.timer == nil:
		d.timer = time.AfterFunc(wait, d.expire)
	default:
		d.timer.Reset(wait)
	}
}

// expire closes the channel if the deadline has come; a timer that fires
// for an earlier setting does nothing.
func (d *deadline) expire() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.at.IsZero() || time.Now().Before(d.at) || isClosed(d.ch) {
		return
	}
	close(d.ch)
}

// expired returns a channel closed once the deadline has passed.
func (d *deadline) expired() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ch == nil {
		d.ch = make(chan struct{})
	}
	return d.ch
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
