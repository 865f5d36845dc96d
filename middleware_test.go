package tokenpace_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// pacedBody returns its parts one read at a time, each gap after the one
// before (on the caller's clock: virtual time in a synctest bubble).
type pacedBody struct {
	parts []string
	gap   time.Duration
	i     int
}

func (b *pacedBody) Read(p []byte) (int, error) {
	if b.i >= len(b.parts) {
		return 0, io.EOF
	}
	if b.i > 0 {
		time.Sleep(b.gap)
	}
	n := copy(p, b.parts[b.i])
	b.i++
	return n, nil
}

func (b *pacedBody) Close() error { return nil }

// twoChunks is an event stream of two content chunks, then the finish
// chunk and [DONE], in three parts.
var twoChunks = []string{
	`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hi"}}]}` + "\n\n",
	`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" there"}}]}` + "\n\n",
	stopDone,
}

// A middleware of the caller's that answers without sending the request
// (a cache, a stub): the stream reads its answer, stamped as it is read,
// from a Client and through a Router alike.
func TestMiddlewareAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stub := option.WithMiddleware(func(req *http.Request, _ option.MiddlewareNext) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
				Body: &pacedBody{parts: twoChunks, gap: 10 * time.Millisecond}, Request: req}, nil
		})
		_, streams := answeredBy(t, stub)
		for name, s := range streams {
			text := readAll(t, s)
			s.Close()
			tm := s.Timing()
			if text != "hi there" || s.Err() != nil {
				t.Errorf("%s: text %q, Err() = %v; want \"hi there\", nil", name, text, s.Err())
			}
			if len(tm.Chunks) != 2 || tm.Sent.IsZero() || tm.Chunks[1].Sub(tm.Chunks[0]) != 10*time.Millisecond {
				t.Errorf("%s: sent %v, chunks %v; want two chunks stamped 10ms apart", name, tm.Sent, tm.Chunks)
			}
		}
	})
}

// A middleware of the caller's that replaces the response's body, in the
// response it got or in a copy it returns: the body it returned is read,
// stamped as it is read.
func TestMiddlewareReplacesBody(t *testing.T) {
	for _, copied := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			swap := option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
				res, err := next(req)
				if err != nil {
					return res, err
				}
				res.Body.Close()
				if copied {
					out := *res
					res = &out
				}
				res.Body = &pacedBody{parts: twoChunks, gap: 10 * time.Millisecond}
				return res, nil
			})
			tp, _ := oneRoute(t)
			time.Sleep(time.Second) // the stamps are not the clock's start
			s := tp.NewStreaming(context.Background(), chat("m", 10), swap)
			text := readAll(t, s)
			s.Close()
			tm := s.Timing()
			if text != "hi there" || s.Err() != nil || len(tm.Chunks) != 2 || tm.Chunks[0].Before(tm.Sent) || tm.Chunks[1].Sub(tm.Chunks[0]) != 10*time.Millisecond {
				t.Errorf("copied %v: text %q, Err() = %v, sent %v, chunks %v; want \"hi there\", nil, two chunks after Sent, 10ms apart",
					copied, text, s.Err(), tm.Sent, tm.Chunks)
			}
		})
	}
}

// TestMiddlewareAnswersWithResponseInto: a stub middleware answers, and
// the caller takes the response with its own WithResponseInto too: the
// stream still reads the stub's answer, and the caller gets it.
func TestMiddlewareAnswersWithResponseInto(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stub := option.WithMiddleware(func(req *http.Request, _ option.MiddlewareNext) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
				Body: &pacedBody{parts: twoChunks, gap: 10 * time.Millisecond}, Request: req}, nil
		})
		oc := openai.NewClient(option.WithBaseURL("http://unused.invalid/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0))
		var mine *http.Response
		s := tokenpace.NewClient(oc).NewStreaming(context.Background(), chat("m", 10), stub, option.WithResponseInto(&mine))
		text := readAll(t, s)
		s.Close()
		if text != "hi there" || s.Err() != nil || mine == nil {
			t.Errorf("text %q, Err() = %v, caller's response %v; want \"hi there\", nil, the stub's", text, s.Err(), mine)
		}
	})
}

// A middleware of the caller's that answers with a response without a
// body (no transport does): the stream read it, on a goroutine no guard
// covers, and the process crashed. The caller now gets a KindTruncated
// error for an empty body, from a Client and through a Router alike, and
// Close returns; a whole call gets an error, not a crash (openai-go reads
// the missing body inside the guard of the caller's middleware).
func TestMiddlewareAnswersWithoutBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stub := option.WithMiddleware(func(req *http.Request, _ option.MiddlewareNext) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Request: req}, nil
		})
		c, streams := answeredBy(t, stub)
		for name, s := range streams {
			text := readAll(t, s)
			_ = s.Close()
			var se *tokenpace.StreamError
			if text != "" || !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindTruncated || se.Detail != "empty body" {
				t.Errorf("%s: text %q, Err() = %v; want no text and a KindTruncated \"empty body\" error", name, text, s.Err())
			}
		}
		if _, err := c.New(context.Background(), chat("m", 10), stub); !errors.As(err, new(*tokenpace.StreamError)) {
			t.Errorf("whole: err %v, want a *StreamError", err)
		}
	})
}

// panickyBody gives its parts, then panics in Read; its Close panics too.
type panickyBody struct{ pacedBody }

func (b *panickyBody) Read(p []byte) (int, error) {
	if b.i >= len(b.parts) {
		panic("the caller's body broke")
	}
	return b.pacedBody.Read(p)
}

func (b *panickyBody) Close() error { panic("the caller's body broke on Close") }

// A middleware of the caller's whose body panics in Read and in Close: the
// stream read it on goroutines no guard covered, and the process
// crashed. The caller now gets a KindPanic error naming the response
// body, with the text read before it, from a Client and through a Router,
// and Close returns.
func TestMiddlewareBodyPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stub := option.WithMiddleware(func(req *http.Request, _ option.MiddlewareNext) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
				Body: &panickyBody{pacedBody{parts: twoChunks[:2], gap: 10 * time.Millisecond}}, Request: req}, nil
		})
		_, streams := answeredBy(t, stub)
		for name, s := range streams {
			text := readAll(t, s)
			_ = s.Close()
			var se *tokenpace.StreamError
			if text != "hi there" || !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindPanic || se.Detail != "response body" {
				t.Errorf("%s: text %q, Err() = %v; want \"hi there\" and a KindPanic \"response body\" error", name, text, s.Err())
			}
		}
	})
}

// answeredBy returns a Client whose requests no server answers (stub, a
// middleware of the caller's, does), and a stream of it and one through a
// Router of one route, each started with stub.
func answeredBy(t *testing.T, stub option.RequestOption) (*tokenpace.Client, map[string]*tokenpace.Stream[openai.ChatCompletionChunk]) {
	t.Helper()
	oc := openai.NewClient(option.WithBaseURL("http://unused.invalid/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0))
	c := tokenpace.NewClient(oc)
	r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, tokenpace.Route{Name: "only", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return c, map[string]*tokenpace.Stream[openai.ChatCompletionChunk]{
		"client": c.NewStreaming(context.Background(), chat("m", 10), stub),
		"router": r.NewStreaming(context.Background(), chat("m", 10), stub),
	}
}
