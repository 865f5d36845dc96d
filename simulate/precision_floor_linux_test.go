package simulate_test

import (
	"container/heap"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// floorServer is the floor of the online-precision measurement ("floor"
// mode): what serving the streams costs with nothing but the writes. Each
// request gets its headers, then one goroutine, woken by one timer at each
// due time as the simulator's driver is, writes every stream's pre-built
// 200-byte chunk (HTTP chunked framing, one SSE event) when it falls due,
// TTFT then every ITL, with one raw write(2) per chunk. No engine, no
// formatting, no per-chunk hand-off: the loopback write and the wake-ups.
type floorServer struct {
	adds   chan *floorStream
	chunk  []byte
	thread bool // sleep on a locked thread (clock_nanosleep) instead of a Go timer
}

type floorStream struct {
	fd    uintptr
	due   time.Time
	left  int
	done  chan struct{}
	index int
}

type floorConnKey struct{}

func newFloorServer(thread bool) *floorServer {
	// An SSE event carrying content, padded to make the framed chunk 200
	// bytes: 2 hex digits, CRLF, 194 bytes of data, CRLF.
	event := `data: {"choices":[{"index":0,"delta":{"content":" word"}}],"pad":"` // then padding
	pad := 194 - len(event) - len(`"}`+"\n\n")
	data := event + strings.Repeat("x", pad) + `"}` + "\n\n"
	f := &floorServer{adds: make(chan *floorStream, 1024), chunk: []byte(fmt.Sprintf("%x\r\n%s\r\n", len(data), data)), thread: thread}
	if thread {
		go f.threadLoop()
	} else {
		go f.loop()
	}
	return f
}

func (f *floorServer) connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, floorConnKey{}, c)
}

func (f *floorServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	io.Copy(io.Discard, r.Body)
	arrived := time.Now()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	var fd uintptr
	raw, _ := r.Context().Value(floorConnKey{}).(*net.TCPConn).SyscallConn()
	raw.Control(func(d uintptr) { fd = d })
	s := &floorStream{fd: fd, due: arrived.Add(precTTFT), left: precTokens, done: make(chan struct{})}
	f.adds <- s
	<-s.done // the connection stays open while the loop writes to fd
}

func (f *floorServer) loop() {
	var q floorQueue
	timer := time.NewTimer(time.Hour)
	for {
		select {
		case s := <-f.adds:
			heap.Push(&q, s)
		case <-timer.C:
			f.writeDue(&q, time.Now())
		}
		if len(q) > 0 {
			timer.Reset(time.Until(q[0].due))
		}
	}
}

// writeDue writes the chunk of every stream of q due by now, and drops
// the streams that have had all their chunks.
func (f *floorServer) writeDue(q *floorQueue, now time.Time) {
	for len(*q) > 0 && !(*q)[0].due.After(now) {
		s := (*q)[0]
		n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, s.fd, uintptr(unsafe.Pointer(&f.chunk[0])), uintptr(len(f.chunk)))
		if errno != 0 || int(n) != len(f.chunk) {
			panic(fmt.Sprintf("floor: write took %d of %d bytes, errno %v", int(n), len(f.chunk), errno))
		}
		if s.left--; s.left == 0 {
			heap.Pop(q)
			close(s.done)
			continue
		}
		s.due = s.due.Add(precITL)
		heap.Fix(q, 0)
	}
}

// threadLoop is loop on a locked OS thread that sleeps in
// clock_nanosleep until the next due time, at most 1 ms, and takes new
// streams between sleeps.
func (f *floorServer) threadLoop() {
	runtime.LockOSThread()
	var q floorQueue
	epoch := time.Now()
	var base syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&base)), 0)
	for {
		for more := true; more; {
			select {
			case s := <-f.adds:
				heap.Push(&q, s)
			default:
				more = false
			}
		}
		now := time.Now()
		f.writeDue(&q, now)
		wake := now.Add(time.Millisecond)
		if len(q) > 0 && q[0].due.Before(wake) {
			wake = q[0].due
		}
		abs := time.Duration(base.Nano()) + wake.Sub(epoch)
		ts := syscall.NsecToTimespec(int64(abs))
		syscall.Syscall6(syscall.SYS_CLOCK_NANOSLEEP, 1, 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	}
}

type floorQueue []*floorStream

func (h floorQueue) Len() int           { return len(h) }
func (h floorQueue) Less(i, j int) bool { return h[i].due.Before(h[j].due) }
func (h floorQueue) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *floorQueue) Push(x any) {
	s := x.(*floorStream)
	s.index = len(*h)
	*h = append(*h, s)
}
func (h *floorQueue) Pop() any {
	old := *h
	s := old[len(old)-1]
	*h = old[:len(old)-1]
	return s
}
