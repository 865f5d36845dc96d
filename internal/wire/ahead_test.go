package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// wrapped is a body that wraps another and passes its Started on, as a
// body that stamps reads does; its reads are counted.
type wrapped struct {
	io.ReadCloser
	reads int
}

func (w *wrapped) Read(p []byte) (int, error) {
	w.reads++
	return w.ReadCloser.Read(p)
}

func (w *wrapped) Started() []byte {
	if a, ok := w.ReadCloser.(Started); ok {
		return a.Started()
	}
	return nil
}

// TestReadAhead: the bytes read ahead are read first, then the rest, once
// each; a body read ahead already, under a wrapper that passes its
// Started on, gives them again without a read; one that was not is read
// ahead through its wrapper.
func TestReadAhead(t *testing.T) {
	res := &http.Response{Body: io.NopCloser(strings.NewReader("Please try again in 8s. And more."))}
	if got := string(ReadAhead(res, 23)); got != "Please try again in 8s." {
		t.Fatalf("ReadAhead = %q, want the first 23 bytes", got)
	}
	w := &wrapped{ReadCloser: res.Body}
	res.Body = w
	if got := string(ReadAhead(res, 64)); got != "Please try again in 8s." || w.reads != 0 {
		t.Errorf("ReadAhead again = %q after %d reads, want the same bytes and no read", got, w.reads)
	}
	if all, _ := io.ReadAll(res.Body); string(all) != "Please try again in 8s. And more." {
		t.Errorf("body read = %q, want it whole", all)
	}

	fresh := &wrapped{ReadCloser: io.NopCloser(strings.NewReader("plain"))}
	res = &http.Response{Body: fresh}
	if got := string(ReadAhead(res, 64)); got != "plain" || fresh.reads == 0 {
		t.Errorf("ReadAhead of a body not read ahead = %q after %d reads, want it read", got, fresh.reads)
	}
	if all, _ := io.ReadAll(res.Body); string(all) != "plain" {
		t.Errorf("body read = %q, want it whole", all)
	}
}
