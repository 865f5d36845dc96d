package simulate

import (
	"bytes"
	"net"
	"net/http"
	"strconv"
)

// JSONErrorPages wraps l so that the plain-text error pages net/http writes
// by itself, before any handler runs (431 for headers over the server's
// MaxHeaderBytes, 400 for a malformed request, 501 for an unsupported
// transfer encoding, 505 for an unsupported HTTP version), go out as
// OpenAI-style JSON errors like every other error of the simulator, so that
// a client's error handling sees one format. Other bytes pass unchanged.
// StartLoopback, StartInMemory, ServeInMemory and `tokenpace sim` serve on
// such a listener.
func JSONErrorPages(l net.Listener) net.Listener { return errorPageListener{l} }

type errorPageListener struct{ net.Listener }

func (l errorPageListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return errorPageConn{c}, nil
}

// errorPageConn rewrites net/http's error pages. net/http writes each one
// with a single Write straight to the connection, so one Write holds a
// whole page.
type errorPageConn struct{ net.Conn }

// errorPageHeaders is what net/http puts between the status line and the
// text of its error pages.
const errorPageHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

func (c errorPageConn) Write(b []byte) (int, error) {
	page, ok := jsonErrorPage(b)
	if !ok {
		return c.Conn.Write(page)
	}
	if _, err := c.Conn.Write(page); err != nil {
		return 0, err
	}
	return len(b), nil
}

// CloseWrite half-closes the connection when the wrapped one can, as
// net/http does after an error page.
func (c errorPageConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// jsonErrorPage returns b rewritten as a JSON error response and true if b
// is one of net/http's plain-text error pages, else b and false.
func jsonErrorPage(b []byte) ([]byte, bool) {
	const proto = "HTTP/1.1 "
	if !bytes.HasPrefix(b, []byte(proto)) {
		return b, false
	}
	line, text, ok := bytes.Cut(b[len(proto):], []byte(errorPageHeaders))
	if !ok || len(line) < 3 {
		return b, false
	}
	status, err := strconv.Atoi(string(line[:3]))
	if err != nil || status < 400 || status > 599 {
		return b, false
	}
	body := errorBody(&apiError{status: status, message: string(text)})
	out := make([]byte, 0, len(body)+128)
	out = append(out, proto...)
	out = strconv.AppendInt(out, int64(status), 10)
	out = append(out, ' ')
	out = append(out, http.StatusText(status)...)
	out = append(out, "\r\nContent-Type: application/json\r\nContent-Length: "...)
	out = strconv.AppendInt(out, int64(len(body)), 10)
	out = append(out, "\r\nConnection: close\r\n\r\n"...)
	return append(out, body...), true
}
