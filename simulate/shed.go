package simulate

import (
	"errors"
	"net"
	"net/http"
	"slices"
	"sync"
	"syscall"
	"time"
)

// IdleShedder keeps a server accepting connections when the process runs
// out of file descriptors. net/http answers an accept that fails with
// EMFILE or ENFILE by sleeping and trying again, and goes on failing until
// idle keep-alive connections time out on their own: new clients wait for
// seconds while idle ones hold the descriptors. An IdleShedder closes the
// connections idle the longest (a quarter of them, at least one) and
// accepts again at once; only when none is idle does the error reach
// net/http.
//
// Wrap the listener with Listener and set the http.Server's ConnState to
// ConnState (calling any other hook from it), so that it knows which
// connections are idle. The zero value is ready to use; it is safe for
// concurrent use. StartLoopback, StartInMemory, ServeInMemory and
// `tokenpace sim` serve with one.
type IdleShedder struct {
	mu   sync.Mutex
	idle map[net.Conn]time.Time // since when each idle connection is idle
	shed int                    // connections closed so far
}

// Listener returns l, whose Accept sheds idle connections when it runs out
// of file descriptors.
func (s *IdleShedder) Listener(l net.Listener) net.Listener { return shedListener{l, s} }

// ConnState follows a connection's state: net/http's ConnState hook.
func (s *IdleShedder) ConnState(c net.Conn, st http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st == http.StateIdle {
		if s.idle == nil {
			s.idle = map[net.Conn]time.Time{}
		}
		s.idle[c] = time.Now()
		return
	}
	delete(s.idle, c)
}

// Shed returns how many idle connections it has closed so far.
func (s *IdleShedder) Shed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shed
}

// shedOldest closes the quarter of the idle connections idle the longest,
// at least one, and reports whether it closed any.
func (s *IdleShedder) shedOldest() bool {
	s.mu.Lock()
	conns := make([]net.Conn, 0, len(s.idle))
	for c := range s.idle {
		conns = append(conns, c)
	}
	n := max(len(conns)/4, min(len(conns), 1))
	slices.SortFunc(conns, func(a, b net.Conn) int { return s.idle[a].Compare(s.idle[b]) })
	conns = conns[:n]
	for _, c := range conns {
		delete(s.idle, c)
	}
	s.shed += n
	s.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
	return n > 0
}

type shedListener struct {
	net.Listener
	s *IdleShedder
}

// Accept accepts a connection; out of file descriptors, it closes idle
// connections and tries again while there are any.
func (l shedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err == nil || !outOfDescriptors(err) || !l.s.shedOldest() {
			return c, err
		}
	}
}

// outOfDescriptors reports whether err says the process (EMFILE) or the
// system (ENFILE) has no file descriptor left.
func outOfDescriptors(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}
