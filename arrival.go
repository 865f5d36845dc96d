package tokenpace

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"time"

	"github.com/openai/openai-go/v3/option"
)

// arrivalBody wraps a response body and notes when each read that returned
// data completed. Only the attempt's reader goroutine reads it, so last needs
// no lock: an SSE event arrived when the read that completed it returned,
// which is last at the moment the framer yields the event (a bufio.Scanner
// reads only when its buffer holds no complete line).
type arrivalBody struct {
	io.ReadCloser
	last   time.Time
	before func() // called before each read; may be nil
}

// Read reads from the wrapped body and stamps reads that returned data.
func (b *arrivalBody) Read(p []byte) (int, error) {
	if b.before != nil {
		b.before()
	}
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.last = time.Now()
	}
	return n, err
}

// middleware returns the openai-go middleware that records every HTTP
// attempt of a call: its start, connection breakdown, request write,
// response headers, and wraps the body of each response for arrival times.
// It is the innermost middleware, nearest the wire.
func (a *attempt) middleware() option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		a.mu.Lock()
		now := time.Now()
		if a.t.Sent.IsZero() {
			a.t.Sent = now
		}
		a.t.HTTPAttempts++
		a.t.HTTP = append(a.t.HTTP, HTTPAttempt{Start: now})
		i := len(a.t.HTTP) - 1
		a.t.ServerAddress, a.t.ServerPort = serverOf(req.URL)
		a.mu.Unlock()

		req = req.WithContext(httptrace.WithClientTrace(req.Context(), a.clientTrace(i)))
		res, err := next(req)

		a.mu.Lock()
		defer a.mu.Unlock()
		h := &a.t.HTTP[i]
		h.Err = err
		if res != nil {
			h.Headers = time.Now()
			h.Status = res.StatusCode
			a.t.Headers = h.Headers
			a.t.Streaming = streamHeaders(res.Header)
			a.res = res
			if res.Body != nil {
				a.body = &arrivalBody{ReadCloser: res.Body, before: a.flush}
				res.Body = a.body
			}
		}
		a.t.WroteRequest = h.WroteRequest
		a.t.Conn = h.Conn
		return res, err
	}
}

// clientTrace records the connection breakdown of HTTP attempt i. Its
// callbacks may run on transport goroutines, hence the lock.
func (a *attempt) clientTrace(i int) *httptrace.ClientTrace {
	var dnsStart, connectStart, tlsStart time.Time
	set := func(f func(h *HTTPAttempt)) {
		a.mu.Lock()
		if !a.ended { // a dial may outlive its request
			h := &a.t.HTTP[i]
			f(h)
			if i == len(a.t.HTTP)-1 {
				// The writer may report after the response arrived.
				a.t.WroteRequest, a.t.Conn = h.WroteRequest, h.Conn
			}
		}
		a.mu.Unlock()
	}
	return &httptrace.ClientTrace{
		DNSStart: func(httptrace.DNSStartInfo) { set(func(*HTTPAttempt) { dnsStart = time.Now() }) },
		DNSDone: func(httptrace.DNSDoneInfo) {
			set(func(h *HTTPAttempt) { h.Conn.DNS = since(dnsStart, time.Now()) })
		},
		ConnectStart: func(string, string) { set(func(*HTTPAttempt) { connectStart = time.Now() }) },
		ConnectDone: func(string, string, error) {
			set(func(h *HTTPAttempt) { h.Conn.Connect = since(connectStart, time.Now()) })
		},
		TLSHandshakeStart: func() { set(func(*HTTPAttempt) { tlsStart = time.Now() }) },
		TLSHandshakeDone: func(tls.ConnectionState, error) {
			set(func(h *HTTPAttempt) { h.Conn.TLS = since(tlsStart, time.Now()) })
		},
		GotConn: func(info httptrace.GotConnInfo) {
			set(func(h *HTTPAttempt) { h.Conn.Reused = info.Reused })
		},
		WroteRequest: func(httptrace.WroteRequestInfo) {
			set(func(h *HTTPAttempt) { h.WroteRequest = time.Now() })
		},
	}
}

// serverOf returns the host and port of u, the port implied by its scheme
// when it names none; 0 for an unknown scheme or a port that is not a
// number.
func serverOf(u *url.URL) (string, int) {
	if u == nil {
		return "", 0
	}
	switch p := u.Port(); {
	case p != "":
		n, err := strconv.Atoi(p)
		if err != nil {
			n = 0
		}
		return u.Hostname(), n
	case u.Scheme == "https":
		return u.Hostname(), 443
	case u.Scheme == "http":
		return u.Hostname(), 80
	}
	return u.Hostname(), 0
}
