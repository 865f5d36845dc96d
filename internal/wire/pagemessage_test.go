package wire

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestPageMessage: a web page gives its title, else its h1, else its
// lines of text (a title or h1 that says only "Error" passed over); lines of text give their words on one line; a
// secret the page repeats is hidden; the message is bounded whatever the
// page; JSON, an event stream's lines and binary give none.
func TestPageMessage(t *testing.T) {
	long := strings.Repeat("é", 400)
	tests := []struct {
		name, body, want string
		ok               bool
	}{
		{"nginx", "<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n", "504 Gateway Time-out", true},
		{"Cloudflare, comments before the title", "<!DOCTYPE html>\n<!--[if lt IE 7]> <html class=\"no-js ie6 oldie\" lang=\"en-US\"> <![endif]-->\n<head>\n<title>api.example.com | 520: Web server is returning an unknown error</title>\n</head><body><script>var t = '<title>no</title>';</script></body></html>", "api.example.com | 520: Web server is returning an unknown error", true},
		{"Google's front end", "<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <title>Error 502 (Server Error)!!1</title>\n  <style>*{margin:0}</style>\n  <p><b>502.</b> <ins>That&#8217;s an error.</ins>", "Error 502 (Server Error)!!1", true},
		{"an h1 when no title", "<html><body><h1 class=\"x\">\n  <span>A timeout occurred</span>\n  <span>Error code 524</span>\n</h1></body></html>", "A timeout occurred Error code 524", true},
		{"an empty title, then the h1", "<html><head><title> </title></head><body><h1>Service Unavailable</h1></body></html>", "Service Unavailable", true},
		{"no title, no h1: the lines of text, scripts and styles left out", "<html><head><style>body{color:red}</style><script>alert('x')</script></head><body><div>\n</div><p>There was an error &amp; we are on it.</p><p>Second</p></body></html>", "There was an error & we are on it. Second", true},
		{"Express's page: a title that says only Error, the words in a pre", "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot POST /v1/chat/completions</pre>\n</body>\n</html>\n", "Cannot POST /v1/chat/completions", true},
		{"Express's page of an error and its stack", "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Error</title>\n</head>\n<body>\n<pre>Error: connect ECONNREFUSED 127.0.0.1:8000<br> &nbsp; &nbsp;at TCPConnectWrap.afterConnect (node:net:1607:16)</pre>\n</body>\n</html>\n", "Error: connect ECONNREFUSED 127.0.0.1:8000 at TCPConnectWrap.afterConnect (node:net:1607:16)", true},
		{"Python's http.server: title and h1 Error response, the words in paragraphs", "<!DOCTYPE HTML>\n<html lang=\"en\">\n    <head>\n        <meta charset=\"utf-8\">\n        <title>Error response</title>\n    </head>\n    <body>\n        <h1>Error response</h1>\n        <p>Error code: 502</p>\n        <p>Message: Bad Gateway.</p>\n        <p>Error code explanation: 502 - Invalid responses from another server/proxy.</p>\n    </body>\n</html>\n", "Error code: 502 Message: Bad Gateway. Error code explanation: 502 - Invalid responses from another server/proxy.", true},
		{"a title Error and nothing more", "<html><head><title>Error</title></head><body></body></html>", "Error", true},
		{"a one-line page", "<html>502 Bad Gateway from proxy</html>", "502 Bad Gateway from proxy", true},
		{"the request URL with its key", "<html><body><p>The requested URL <code>/v1beta/openai/chat/completions?key=AIzaSyA1234567890abcdefghijklmnop</code> was not found on this server.</p></body></html>", "The requested URL /v1beta/openai/chat/completions?[hidden] was not found on this server.", true},
		{"a key and a bearer token in text", "invalid key sk-proj-abcdefghijklmnopqrstuvwxyz for Bearer abc123.def456\n", "invalid key [hidden] for Bearer [hidden]", true},
		{"Vercel's lines", "An error occurred with your deployment\n\nFUNCTION_INVOCATION_TIMEOUT\n\nfra1::46n92-1753107905195-02e151215b22\n", "An error occurred with your deployment FUNCTION_INVOCATION_TIMEOUT fra1::46n92-1753107905195-02e151215b22", true},
		{"a long title, cut on a rune", "<title>" + long + "</title>", long[:maxPageMessage] + "…", true},
		{"a title that never closes: the text", "<html><title>Broken", "Broken", true},
		{"a non-ASCII letter whose lower case is longer, before the title", "<html><p>İİİİ</p><title>Bad Gateway</title></html>", "Bad Gateway", true},
		{"only a script", "<html><script>" + strings.Repeat("x", 1<<15) + "</script></html>", "", false},
		{"an unclosed script", "<html><script>var a = 1;", "", false},
		{"JSON", `{"error":{"message":"x"}}`, "", false},
		{"a JSON number", "500", "", false},
		{"an event stream's lines", "event: error\ndata: {\"message\":\"x\"}\n\n", "", false},
		{"binary", "\x89PNG\r\n\x1a\n\x00\x00", "", false},
		{"not UTF-8", "caf\xe9 closed", "", false},
		{"nothing", " \r\n ", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := pageMessage([]byte(tt.body))
			if got != tt.want || ok != tt.ok {
				t.Errorf("pageMessage = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
			if len(got) > maxPageMessage+len("…") {
				t.Errorf("message of %d bytes, over the bound", len(got))
			}
		})
	}
}

// TestBoundErrorBodyPage: an error body that is a page becomes an error
// object whose message is the page's (openai-go left it empty), and one
// that repeats the request's key never gives it; a page in FastAPI's
// detail, as Open WebUI relays an upstream's, gives the page's message
// too, not the page.
func TestBoundErrorBodyPage(t *testing.T) {
	for body, want := range map[string]string{
		"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n": "502 Bad Gateway",
		`{"detail":"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body></body>\r\n</html>\r\n"}`:                                     "502 Bad Gateway",
		"<html><body><p>GET /v1/chat/completions?api_key=secret123 not found</p></body></html>":                                                  "GET /v1/chat/completions?[hidden] not found",
		"404 page not found for /v1/models?key=secret123":                                                                                        "404 page not found for /v1/models?[hidden]",
		`{"detail":"Not Found"}`: "Not Found",
	} {
		res := response(502, nil, []byte(body))
		if cut := BoundErrorBody(res); cut != "" {
			t.Errorf("%.40q: cut %q", body, cut)
		}
		got, _ := io.ReadAll(res.Body)
		if m := gjson.GetBytes(got, "error.message").String(); m != want {
			t.Errorf("%.40q: message %q, want %q", body, m, want)
		}
		if bytes.Contains(got, []byte("secret123")) {
			t.Errorf("%.40q: the key given back: %s", body, got)
		}
	}
}

// TestBoundErrorBodyHugePage: a page of 64 KiB whose only words come
// last reads in one pass to them; one with no words at all passes as it
// came (openai-go's empty message); one over the bound is cut as any
// body is.
func TestBoundErrorBodyHugePage(t *testing.T) {
	tags := strings.Repeat("<div>", maxErrorBody/5-10)
	for page, want := range map[string]string{
		"<html><body>" + tags + "Overloaded</body></html>": "Overloaded",
		"<html><body>" + tags + "</body></html>":           "",
	} {
		res := response(503, nil, []byte(page))
		if cut := BoundErrorBody(res); cut != "" {
			t.Fatalf("cut %q, want none: %d bytes", cut, len(page))
		}
		got, _ := io.ReadAll(res.Body)
		if m := gjson.GetBytes(got, "error.message").String(); m != want {
			t.Errorf("message %q, want %q", m, want)
		}
	}
	res := response(503, nil, []byte("<html>"+tags+strings.Repeat("x", maxErrorBody)))
	if cut := BoundErrorBody(res); !strings.Contains(cut, "over") {
		t.Errorf("cut %q, want over the bound", cut)
	}
}

// FuzzPageMessage: no page, however broken, makes pageMessage panic or
// give more than its bound.
func FuzzPageMessage(f *testing.F) {
	for _, s := range []string{"<html><title>x</title></html>", "<script>", "<h1", "<!--", "</", "<p>a</p><br/>b", "İ<title>x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if msg, _ := pageMessage(b); len(msg) > maxPageMessage+len("…") {
			t.Errorf("message of %d bytes", len(msg))
		}
	})
}
