package tokenpace

import (
	"crypto/tls"
	"net"
	"net/http/httptrace"
	"time"
)

// clientTrace returns the hooks that record the connection breakdown of
// HTTP request i.
func (x *exchange) clientTrace(i int) *requestTrace {
	t := &requestTrace{x: x, i: i}
	t.hooks = httptrace.ClientTrace{
		DNSStart: t.dnsStart, DNSDone: t.dnsDone,
		ConnectStart: t.connectStart, ConnectDone: t.connectDone,
		TLSHandshakeStart: t.tlsStart, TLSHandshakeDone: t.tlsDone,
		GotConn: t.gotConn, WroteRequest: t.wroteRequest,
		GotFirstResponseByte: t.gotFirstByte,
	}
	return t
}

// requestTrace holds the httptrace hooks of one HTTP request of an
// exchange and the start times they pair with their ends: one value per
// request, its hooks its methods.
type requestTrace struct {
	x     *exchange
	i     int // the request's index in x.t.HTTP
	hooks httptrace.ClientTrace
	// Under x.mu, as the hooks may run on transport goroutines.
	dnsAt, connectAt, tlsAt time.Time
	responded               bool          // a byte of the response came back
	idle                    time.Duration // how long the connection had been idle
	// multiplexed: the connection is HTTP/2's, whose transport sends again
	// itself what its server refused unprocessed (see multiplexed).
	multiplexed bool
}

// record runs f on the request's HTTPAttempt under the exchange's lock,
// unless the exchange has ended (a dial may outlive its request), and
// keeps the exchange's own fields in step when it is the last request:
// the writer may report after the response arrived.
func (t *requestTrace) record(f func(t *requestTrace, h *HTTPAttempt, now time.Time)) {
	now := time.Now()
	x := t.x
	x.mu.Lock()
	if !x.ended {
		h := &x.t.HTTP[t.i]
		f(t, h, now)
		if t.i == len(x.t.HTTP)-1 {
			x.t.WroteRequest, x.t.Conn = h.WroteRequest, h.Conn
		}
	}
	x.mu.Unlock()
}

func (t *requestTrace) dnsStart(httptrace.DNSStartInfo) {
	t.record(func(t *requestTrace, _ *HTTPAttempt, now time.Time) { t.dnsAt = now })
}

func (t *requestTrace) dnsDone(httptrace.DNSDoneInfo) {
	t.record(func(t *requestTrace, h *HTTPAttempt, now time.Time) { h.Conn.DNS = since(t.dnsAt, now) })
}

func (t *requestTrace) connectStart(string, string) {
	t.record(func(t *requestTrace, _ *HTTPAttempt, now time.Time) { t.connectAt = now })
}

func (t *requestTrace) connectDone(string, string, error) {
	t.record(func(t *requestTrace, h *HTTPAttempt, now time.Time) { h.Conn.Connect = since(t.connectAt, now) })
}

func (t *requestTrace) tlsStart() {
	t.record(func(t *requestTrace, _ *HTTPAttempt, now time.Time) { t.tlsAt = now })
}

func (t *requestTrace) tlsDone(tls.ConnectionState, error) {
	t.record(func(t *requestTrace, h *HTTPAttempt, now time.Time) { h.Conn.TLS = since(t.tlsAt, now) })
}

func (t *requestTrace) gotConn(info httptrace.GotConnInfo) {
	reused, idle, mux := info.Reused, info.IdleTime, multiplexed(info.Conn)
	t.record(func(t *requestTrace, h *HTTPAttempt, _ time.Time) {
		h.Conn.Reused, t.idle, t.multiplexed = reused, idle, mux
	})
}

// multiplexed reports whether conn carries HTTP/2, negotiated over TLS. A
// request that failed on such a connection before its response is never
// sent again at once (see exchange.send): its server reset the stream on
// a connection it keeps serving, and RFC 9113 (8.7) makes only a stream
// refused (REFUSED_STREAM), or past a GOAWAY's last one, safe to send
// again, which Go's transport does itself; after any other reset the
// request may have been processed. Nor does the server close its
// connections after each response (see wire.ClosingServers).
func multiplexed(conn net.Conn) bool {
	tc, ok := conn.(*tls.Conn)
	return ok && tc.ConnectionState().NegotiatedProtocol == "h2"
}

func (t *requestTrace) gotFirstByte() {
	t.record(func(t *requestTrace, _ *HTTPAttempt, _ time.Time) { t.responded = true })
}

func (t *requestTrace) wroteRequest(httptrace.WroteRequestInfo) {
	t.record(func(_ *requestTrace, h *HTTPAttempt, now time.Time) { h.WroteRequest = now })
}
