package sse

import (
	"errors"
	"strings"
	"testing"
)

// unframedDocument reads body with Sniff to its first Next and returns
// what UnframedDocument gives then.
func unframedDocument(t *testing.T, body string, max int) (string, error) {
	t.Helper()
	r := NewReader(strings.NewReader(body), max)
	r.Sniff()
	if _, err := r.Next(); !errors.Is(err, ErrNotEventStream) {
		t.Fatalf("Next(%q) = %v, want ErrNotEventStream", body, err)
	}
	doc, err := r.UnframedDocument()
	return string(doc), err
}

// TestUnframedDocument: a JSON object printed over many lines, as OpenAI
// prints a non-streamed answer, is read whole, and no further; a first line that is a
// whole object, or no object's start, is all there is; a document over
// the limit is ErrEventTooLong, not a longer read; one the body ends inside
// is ErrDocumentCut. A first line that opens no JSON, though it begins
// with a brace, is no document cut or too long: what was read is returned,
// as an HTML page's first line is.
func TestUnframedDocument(t *testing.T) {
	pretty := "{\n  \"id\": \"chatcmpl-1\",\n  \"object\": \"chat.completion\"\r\n}\n"
	for _, tc := range []struct {
		name, body, want string
		max              int
		err              error
	}{
		{"printed over many lines", pretty, "{\n  \"id\": \"chatcmpl-1\",\n  \"object\": \"chat.completion\"\n}", 1 << 10, nil},
		{"more after it", pretty + "{\n  \"id\": \"2\"\n}\n", "{\n  \"id\": \"chatcmpl-1\",\n  \"object\": \"chat.completion\"\n}", 1 << 10, nil},
		{"braces in its strings", "{\n  \"a\": \"}\\\"{\",\n  \"b\": [{}]\n}\nmore", "{\n  \"a\": \"}\\\"{\",\n  \"b\": [{}]\n}", 1 << 10, nil},
		{"one line", "{\"id\":\"chatcmpl-1\"}\n{\"id\":\"2\"}\n", "{\"id\":\"chatcmpl-1\"}", 1 << 10, nil},
		{"an HTML page", "<html>\n<body>Bad gateway</body>\n</html>\n", "<html>", 1 << 10, nil},
		{"over the limit", pretty, "", 40, ErrEventTooLong},
		{"cut inside it", "{\n  \"id\": \"chatcmpl-1\",\n", "", 1 << 10, ErrDocumentCut},
		{"no JSON, a brace left open", "{'detail': 'unexpected {'}\n", "{'detail': 'unexpected {'}", 1 << 10, nil},
		{"no JSON over many lines", "{\n  color: red;\n", "{\n  color: red;", 1 << 10, nil},
		{"no JSON over the limit", "{\n  color: red;\n  margin: 0;\n  padding: 0;\n}\n", "{\n  color: red;\n  margin: 0;", 30, nil},
		{"no JSON, a line over the limit", "{\n  color: red;\n  background: " + strings.Repeat("x", 40) + ";\n}\n", "{\n  color: red;", 40, nil},
	} {
		got, err := unframedDocument(t, tc.body, tc.max)
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("%s: UnframedDocument() = %q, %v; want %q, %v", tc.name, got, err, tc.want, tc.err)
		}
	}
}
