package tokenpace_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// rawTransport answers every request with status 200, Content-Type
// text/event-stream and body, delivered in reads of at most step bytes.
type rawTransport struct {
	body string
	step int
}

func (t rawTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{
		StatusCode: 200, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"text/event-stream"}},
		Body:    io.NopCloser(&stepReader{rest: t.body, step: t.step}),
		Request: r, ContentLength: -1,
	}, nil
}

type stepReader struct {
	rest string
	step int
}

func (r *stepReader) Read(p []byte) (int, error) {
	if r.rest == "" {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.step)], r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

// FuzzStream feeds arbitrary bodies to a stream: it must end, with a nil
// error or a *StreamError, never panic or hang, and account for what it
// delivered.
func FuzzStream(f *testing.F) {
	f.Add(sseStream(3), 7)
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n", 1)
	f.Add("data: {\"error\":{\"message\":\"x\"}}\n\n", 3)
	f.Add("data: {\"choices\":[{\"index\":999999,\"delta\":{\"content\":\"a\"}}]}\n\n", 100)
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":-5}]}}]}\n\n", 100)
	f.Add(": only a comment\n\n", 2)
	f.Add("data: [DONE", 4)
	f.Add("\r\n\r\n\n\ndata:\n\n", 1)
	f.Fuzz(func(t *testing.T, body string, step int) {
		if step <= 0 || step > 1<<16 {
			step = 1 << 16
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			fuzzRead(t, body, step)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second): // no input takes near that long: a hang
			buf := make([]byte, 1<<20)
			t.Fatalf("stream did not end; goroutines:\n%s", buf[:runtime.Stack(buf, true)])
		}
	})
}

// fuzzRead streams body, delivered step bytes per read, to its end and
// checks how it ended.
func fuzzRead(t *testing.T, body string, step int) {
	oc := openai.NewClient(option.WithBaseURL("http://fuzz.invalid/v1/"), option.WithAPIKey("x"),
		option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: rawTransport{body, step}}))
	c := tokenpace.NewClient(oc, tokenpace.WithMaxLineBytes(1<<12),
		tokenpace.WithMilestone("x", func(s string) bool { return strings.Contains(s, "x") }))
	s := c.NewStreaming(context.Background(), chat("m", 5))
	n := 0
	for s.Next() {
		_ = s.Current()
		n++
	}
	s.Close()
	var se *tokenpace.StreamError
	if err := s.Err(); err != nil && !errors.As(err, &se) {
		t.Errorf("Err() = %v (%T), want nil or a *StreamError", err, err)
		return
	}
	tm := s.Timing()
	if tm.End.IsZero() || len(tm.Chunks) > n {
		t.Errorf("Timing: End %v, %d chunks for %d delivered", tm.End, len(tm.Chunks), n)
	}
	_ = s.Accumulated()
}
