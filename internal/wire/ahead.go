package wire

import (
	"bytes"
	"io"
	"net/http"
)

// Ahead is a response body whose first bytes, Start, were read ahead:
// its reads take them first, then the rest of the body.
type Ahead struct {
	io.Reader
	io.Closer
	Start []byte
}

// ReadAhead reads up to n bytes of res's body ahead and puts them back:
// the body's reads then take them first, then the rest, or the error
// that ended the read ahead. It returns the bytes read; of a body read
// ahead already, itself or under a wrapper that says so (see Started),
// the bytes read then, without reading again. A response without a body
// gives none.
func ReadAhead(res *http.Response, n int64) []byte {
	if a, ok := res.Body.(Started); ok {
		if start := a.Started(); start != nil {
			return start
		}
	}
	if res.Body == nil || res.Body == http.NoBody {
		return nil
	}
	start, err := io.ReadAll(io.LimitReader(res.Body, n))
	rest := io.Reader(res.Body)
	if err != nil {
		rest = errReader{err}
	}
	res.Body = Ahead{io.MultiReader(bytes.NewReader(start), rest), res.Body, start}
	return start
}

// Started is a body that may have been read ahead: Started returns the
// bytes read ahead, nil when it was not. Ahead is one, and so is a
// wrapper of a body that passes its Started on.
type Started interface{ Started() []byte }

// Started returns the bytes read ahead.
func (a Ahead) Started() []byte { return a.Start }

// errReader returns its error, the one that ended a read ahead.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
