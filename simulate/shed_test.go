package simulate_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// emfileListener fails its first accepts with EMFILE, as a process out of
// file descriptors does, then hands out conn.
type emfileListener struct {
	fails int
	conn  net.Conn
}

func (l *emfileListener) Accept() (net.Conn, error) {
	if l.fails > 0 {
		l.fails--
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.conn, nil
}
func (l *emfileListener) Close() error   { return nil }
func (l *emfileListener) Addr() net.Addr { return nil }

// Out of file descriptors, the listener closes the connections idle the
// longest and accepts the new client at once; with none idle, the error
// goes to net/http as before.
func TestIdleShedderOnEMFILE(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s simulate.IdleShedder
		var peers []net.Conn
		var idle []net.Conn
		for range 5 {
			c, peer := net.Pipe()
			idle, peers = append(idle, c), append(peers, peer)
			s.ConnState(c, http.StateNew)
			s.ConnState(c, http.StateIdle)
			time.Sleep(time.Second) // each idle for a second less than the one before
		}
		s.ConnState(idle[0], http.StateActive) // busy again: never shed
		fresh, _ := net.Pipe()
		l := s.Listener(&emfileListener{fails: 2, conn: fresh})
		c, err := l.Accept()
		if err != nil || c != fresh {
			t.Fatalf("Accept() = %v, %v; want the new connection", c, err)
		}
		// Two failed accepts, each shedding the oldest of the idle ones
		// (a quarter of 4, then of 3: one each).
		if got := s.Shed(); got != 2 {
			t.Errorf("Shed() = %d, want 2", got)
		}
		for i, p := range peers {
			_ = p.SetReadDeadline(time.Now().Add(time.Millisecond))
			_, err := p.Read(make([]byte, 1))
			closed := errors.Is(err, io.EOF)
			if want := i == 1 || i == 2; closed != want {
				t.Errorf("connection %d closed %v, want %v (err %v)", i, closed, want, err)
			}
		}

		var none simulate.IdleShedder
		_, err = none.Listener(&emfileListener{fails: 1}).Accept()
		if !errors.Is(err, syscall.EMFILE) {
			t.Errorf("with nothing idle: Accept() error %v, want EMFILE", err)
		}
		for _, c := range append(idle, peers...) {
			c.Close()
		}
		fresh.Close()
	})
}
