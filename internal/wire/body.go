package wire

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// How much of a body openai-go may read.
//
// openai-go reads an error body, and a non-streaming response, whole
// (io.ReadAll) before it returns: a server, or a proxy, that sends a
// body without end, or a small gzip body that inflates to gigabytes,
// would take the program's memory. The exchange bounds both. An error
// body over maxErrorBody is cut: openai-go then builds its *openai.Error
// (the status kept) from an error object whose message holds the body's
// first KiB, and tokenpace ends the call with a KindTooLarge *StreamError
// that wraps it. A non-streaming response over maxWholeBody fails with
// ErrBodyTooLarge, which tokenpace reports as KindTooLarge too.
const (
	maxErrorBody = 64 << 10
	maxWholeBody = 32 << 20
	errorHead    = 1 << 10
)

// ErrBodyTooLarge is the read error of a non-streaming response longer
// than 32 MiB (see LimitBody).
var ErrBodyTooLarge = fmt.Errorf("tokenpace: response body longer than %d bytes", maxWholeBody)

// ErrorBody reads the error body of res, bounded already (BoundErrorBody),
// and puts it back for the next reader.
func ErrorBody(res *http.Response) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(res.Body, maxErrorBody+errorHead))
	_ = res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	return body, err
}

// BoundErrorBody reads the error body of res, up to maxErrorBody, and
// puts it back for openai-go to read. A longer body is cut: res then
// holds an error object with its first KiB, and cut says why. So does a
// body whose "error" is not an object (Ollama's is a string) or not JSON,
// which openai-go would not decode, losing the status (cut is then
// empty). A body that is an array whose first item holds the error
// object, as Gemini's OpenAI endpoint sends its errors
// ([{"error":{"code":400,"message":…,"status":"INVALID_ARGUMENT"}}]:
// cyberchitta/openai_ex#126, Simpleyyt/ai-manus#101), is that item, whose
// message openai-go would otherwise lose.
func BoundErrorBody(res *http.Response) (cut string) {
	head, err := io.ReadAll(io.LimitReader(res.Body, maxErrorBody+1))
	_ = res.Body.Close()
	if first := gjson.GetBytes(head, "0"); err == nil && len(head) <= maxErrorBody &&
		first.IsObject() && gjson.Get(first.Raw, "error").IsObject() && bytes.HasPrefix(bytes.TrimSpace(head), []byte("[")) {
		head = []byte(first.Raw)
	}
	switch {
	case err != nil:
		cut = fmt.Sprintf("error body of status %d unreadable", res.StatusCode)
	case len(head) > maxErrorBody:
		cut = fmt.Sprintf("error body of status %d over %d bytes", res.StatusCode, maxErrorBody)
	default:
		if raw := gjson.GetBytes(head, "error").Raw; raw == "" || raw == "null" || raw[0] == '{' && gjson.Valid(raw) {
			res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(head)), int64(len(head))
			return ""
		}
	}
	head = head[:min(len(head), errorHead)]
	for len(head) > 0 && !utf8.Valid(head) {
		head = head[:len(head)-1] // a rune cut at the end
	}
	note := cut
	if note == "" {
		note = "error body not valid JSON"
	}
	msg, _ := json.Marshal(map[string]any{"error": map[string]string{
		"message": string(head) + " … (" + note + ")",
		"type":    "invalid_error_body",
	}})
	res.Body = io.NopCloser(bytes.NewReader(msg))
	res.ContentLength = int64(len(msg))
	res.Header.Set("Content-Type", "application/json")
	return cut
}

// LimitBody returns body, failing with ErrBodyTooLarge once it has given
// more than 32 MiB: for a non-streaming response, which openai-go reads
// whole.
func LimitBody(body io.ReadCloser) io.ReadCloser { return &limitedBody{ReadCloser: body} }

// limitedBody is a non-streaming response body that fails once it has
// given more than maxWholeBody bytes.
type limitedBody struct {
	io.ReadCloser
	n int64 // bytes given so far
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.n >= maxWholeBody {
		// At the bound: a body that ends here is whole.
		var one [1]byte
		if n, err := b.ReadCloser.Read(one[:]); n == 0 {
			return 0, err
		}
		return 0, ErrBodyTooLarge
	}
	if rest := maxWholeBody - b.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}

// gunzipBody decodes a body the server compressed though the transport
// did not ask it to (a client that asked for identity, or set its own
// Accept-Encoding): Go's transport then leaves it as it came. It starts
// decoding at its first read, so that a stream's headers are not held up.
type gunzipBody struct {
	src io.ReadCloser
	zr  *gzip.Reader
	err error
}

func (b *gunzipBody) Read(p []byte) (int, error) {
	if b.zr == nil && b.err == nil {
		b.zr, b.err = gzip.NewReader(b.src)
		if b.err == io.EOF {
			b.err = io.ErrUnexpectedEOF
		}
	}
	if b.err != nil {
		return 0, b.err
	}
	return b.zr.Read(p)
}

func (b *gunzipBody) Close() error { return b.src.Close() }

// Decompress makes res's body decode what the server compressed though the
// transport did not ask it to (a client that asked for identity, or set
// its own Accept-Encoding): Go's transport then leaves it as it came.
func Decompress(res *http.Response) {
	if compressed(res) {
		res.Body = &gunzipBody{src: res.Body}
	}
}

// compressed reports whether res's body is still gzip-encoded.
func compressed(res *http.Response) bool {
	return !res.Uncompressed && strings.EqualFold(strings.TrimSpace(res.Header.Get("Content-Encoding")), "gzip")
}
