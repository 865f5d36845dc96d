package simulate_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// pair returns both ends of an in-memory connection.
func pair(t *testing.T, l *simulate.MemListener) (client, server net.Conn) {
	t.Helper()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			t.Errorf("Accept: %v", err)
		}
		accepted <- c
	}()
	client, err := l.DialContext(context.Background(), "tcp", "x")
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	return client, <-accepted
}

func TestMemConnBuffersLikeASocket(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := simulate.NewMemListener()
		defer l.Close()
		c, s := pair(t, l)
		defer c.Close()
		defer s.Close()
		// A write within the buffer completes without a reader.
		msg := bytes.Repeat([]byte("x"), simulate.DefaultConnBuffer)
		if n, err := s.Write(msg); n != len(msg) || err != nil {
			t.Fatalf("Write(buffer size) = %d, %v, want %d, nil", n, err, len(msg))
		}
		// One more byte blocks until the reader takes some.
		wrote := make(chan error)
		go func() {
			_, err := s.Write([]byte("y"))
			wrote <- err
		}()
		synctest.Wait()
		select {
		case err := <-wrote:
			t.Fatalf("Write past the buffer returned %v, want it to block", err)
		default:
		}
		buf := make([]byte, 10)
		if n, err := c.Read(buf); n != 10 || err != nil {
			t.Fatalf("Read = %d, %v, want 10, nil", n, err)
		}
		if err := <-wrote; err != nil {
			t.Fatalf("Write after room freed: %v", err)
		}
		// Closing delivers what is buffered, then EOF.
		s.Close()
		rest, err := io.ReadAll(c)
		if err != nil || len(rest) != len(msg)-10+1 || rest[len(rest)-1] != 'y' {
			t.Errorf("ReadAll after Close = %d bytes, %v, want %d ending in y", len(rest), err, len(msg)-9)
		}
		if _, err := c.Write([]byte("z")); err == nil {
			t.Errorf("Write to a closed peer succeeded, want an error")
		}
	})
}

func TestMemConnDeadlines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := simulate.NewMemListener()
		defer l.Close()
		c, s := pair(t, l)
		defer c.Close()
		defer s.Close()
		start := time.Now()
		c.SetReadDeadline(start.Add(time.Second))
		_, err := c.Read(make([]byte, 1))
		if !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(start) != time.Second {
			t.Errorf("Read with a 1 s deadline = %v after %v, want deadline exceeded after 1s", err, time.Since(start))
		}
		// A deadline in the past interrupts a blocked read at once (what
		// net/http does to stop its background read).
		c.SetReadDeadline(time.Time{})
		done := make(chan error)
		go func() {
			_, err := c.Read(make([]byte, 1))
			done <- err
		}()
		synctest.Wait()
		c.SetReadDeadline(time.Unix(1, 0))
		if err := <-done; !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("Read interrupted by a past deadline = %v, want deadline exceeded", err)
		}
		// Cleared, the deadline no longer fires.
		c.SetReadDeadline(time.Time{})
		s.Write([]byte("ok"))
		buf := make([]byte, 2)
		if n, err := c.Read(buf); n != 2 || err != nil {
			t.Errorf("Read after clearing the deadline = %d, %v, want 2, nil", n, err)
		}
		// Write deadlines: fill the buffer, then time out.
		s.SetWriteDeadline(time.Now().Add(time.Millisecond))
		_, err = s.Write(make([]byte, simulate.DefaultConnBuffer+1))
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("Write past a full buffer = %v, want deadline exceeded", err)
		}
	})
}

func TestMemListenerClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := simulate.NewMemListener()
		l.Close()
		if _, err := l.Accept(); !errors.Is(err, simulate.ErrListenerClosed) {
			t.Errorf("Accept after Close = %v, want ErrListenerClosed", err)
		}
		if _, err := l.DialContext(context.Background(), "tcp", "x"); !errors.Is(err, simulate.ErrListenerClosed) {
			t.Errorf("Dial after Close = %v, want ErrListenerClosed", err)
		}
		if l.Addr().Network() != "memory" {
			t.Errorf("Addr().Network() = %q, want memory", l.Addr().Network())
		}
	})
}
