package simulate_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// rawExchange sends req on a new TCP connection to ts and reads one
// response, then whether the server closed the connection after it. The
// connection's deadline only guards against a hung test.
func rawExchange(t *testing.T, ts *simulate.TestServer, req string) (*http.Response, string, bool) {
	t.Helper()
	addr := strings.TrimSuffix(strings.TrimPrefix(ts.URL, "http://"), "/v1/")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	go c.Write([]byte(req)) // the server may answer before reading it all
	r := bufio.NewReader(c)
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading the response body: %v", err)
	}
	_, err = r.ReadByte()
	return res, string(body), errors.Is(err, io.EOF)
}

// A client that sends a partial body is answered 408 and dropped at the
// body timeout, instead of holding its connection.
func TestPartialBodyTimesOut(t *testing.T) {
	ts := simulate.StartLoopback(t, simulate.WithModel("m", &simulate.Fixed{}), simulate.WithBodyTimeout(50*time.Millisecond))
	res, body, closed := rawExchange(t, ts, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"model\":")
	if res.StatusCode != http.StatusRequestTimeout || !closed {
		t.Errorf("partial body: status %d, connection closed %v, want 408 and closed", res.StatusCode, closed)
	}
	checkErrorBody(t, body, "")
}

// The error pages net/http writes before any handler runs are
// OpenAI-style JSON too.
func TestServerErrorPagesAreJSON(t *testing.T) {
	tests := []struct {
		name   string
		req    string
		status int
	}{
		{"headers too large", "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 1<<20+8192) + "\r\n\r\n", http.StatusRequestHeaderFieldsTooLarge},
		{"malformed request line", "GARBAGE\r\n\r\n", http.StatusBadRequest},
		{"no host", "GET /health HTTP/1.1\r\n\r\n", http.StatusBadRequest},
		{"unsupported version", "GET /health HTTP/4.0\r\nHost: x\r\n\r\n", http.StatusHTTPVersionNotSupported},
	}
	ts := simulate.StartLoopback(t, simulate.WithModel("m", &simulate.Fixed{}))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body, _ := rawExchange(t, ts, tt.req)
			if res.StatusCode != tt.status || res.Header.Get("Content-Type") != "application/json" {
				t.Errorf("status, content type = %d, %q, want %d, application/json (body %q)", res.StatusCode, res.Header.Get("Content-Type"), tt.status, body)
			}
			checkErrorBody(t, body, "")
			var e struct {
				Error struct{ Message string } `json:"error"`
			}
			if json.Unmarshal([]byte(body), &e) == nil && e.Error.Message == "" {
				t.Errorf("error message is empty in %s", body)
			}
		})
	}
}
