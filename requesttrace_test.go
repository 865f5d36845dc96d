package tokenpace

import (
	"crypto/tls"
	"net/http/httptrace"
	"testing"
	"testing/synctest"
	"time"
)

// TestRequestTrace drives a request's httptrace hooks as a transport does
// for a new TLS connection, and checks the breakdown of that request and of
// the exchange: what a caller reads in Timing.HTTP and Timing.Conn.
func TestRequestTrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var x exchange
		x.t.HTTP = []HTTPAttempt{{}, {}}
		first, last := &x.clientTrace(0).hooks, &x.clientTrace(1).hooks
		step := func(d time.Duration) { time.Sleep(d) }

		last.DNSStart(httptrace.DNSStartInfo{Host: "h"})
		step(1 * time.Millisecond)
		last.DNSDone(httptrace.DNSDoneInfo{})
		last.ConnectStart("tcp", "a")
		step(2 * time.Millisecond)
		last.ConnectDone("tcp", "a", nil)
		last.TLSHandshakeStart()
		step(3 * time.Millisecond)
		last.TLSHandshakeDone(tls.ConnectionState{}, nil)
		last.GotConn(httptrace.GotConnInfo{})
		step(4 * time.Millisecond)
		last.WroteRequest(httptrace.WroteRequestInfo{})
		wrote := time.Now()
		first.GotConn(httptrace.GotConnInfo{Reused: true})

		want := ConnInfo{DNS: time.Millisecond, Connect: 2 * time.Millisecond, TLS: 3 * time.Millisecond}
		if got := x.t.HTTP[1].Conn; got != want {
			t.Errorf("HTTP[1].Conn = %+v, want %+v", got, want)
		}
		if got := x.t.HTTP[1].WroteRequest; !got.Equal(wrote) {
			t.Errorf("HTTP[1].WroteRequest = %v, want %v", got, wrote)
		}
		if got, want := x.t.HTTP[0].Conn, (ConnInfo{Reused: true}); got != want {
			t.Errorf("HTTP[0].Conn = %+v, want %+v", got, want)
		}
		// The exchange's own fields follow the last request only.
		if got := x.t.Conn; got != want {
			t.Errorf("exchange Conn = %+v, want %+v", got, want)
		}
		if got := x.t.WroteRequest; !got.Equal(wrote) {
			t.Errorf("exchange WroteRequest = %v, want %v", got, wrote)
		}

		// Once the exchange has ended, a late hook changes nothing.
		var tm Timing
		x.fill(&tm, true)
		last.GotConn(httptrace.GotConnInfo{Reused: true})
		step(time.Millisecond)
		last.WroteRequest(httptrace.WroteRequestInfo{})
		if got := tm.HTTP[1]; got.Conn != want || !got.WroteRequest.Equal(wrote) {
			t.Errorf("after the end: HTTP[1] = %+v, want Conn %+v, WroteRequest %v", got, want, wrote)
		}
	})
}
