package tokenpace_test

import (
	"bytes"
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

// FuzzStream feeds arbitrary bodies to a stream, and to a non-streaming
// call that the same event stream answers: each must end, with a nil
// error or a *StreamError, never panic or hang, and the stream account for
// what it delivered.
func FuzzStream(f *testing.F) {
	f.Add(sseStream(3), 7)
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n", 1)
	f.Add("data: {\"error\":{\"message\":\"x\"}}\n\n", 3)
	f.Add("data: {\"choices\":[{\"index\":999999,\"delta\":{\"content\":\"a\"}}]}\n\n", 100)
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":-5}]}}]}\n\n", 100)
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_details\":[{\"type\":\"reasoning.text\",\"text\":\"h\",\"index\":0}]}}]}\n\n"+
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"c\",\"extra_content\":{\"google\":{\"thought_signature\":\"s\"}},\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}],\"reasoning_details\":[{\"type\":\"reasoning.encrypted\",\"data\":\"s\",\"id\":\"c\",\"index\":1}]}}]}\n\ndata: [DONE]\n\n", 7)
	f.Add(": only a comment\n\n", 2)
	f.Add("data: [DONE", 4)
	f.Add("\r\n\r\n\n\ndata:\n\n", 1)
	// What a decoded event may grow into: empty choices and tool calls.
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}},"+strings.Repeat("{},", 3000)+"{}]}\n\n", 512)
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":["+strings.Repeat("{},", 3000)+"{}]}}]}\n\n", 512)
	// ids that change, no [DONE] after the finish reason.
	f.Add("data: {\"id\":\"a\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"id\":\"b\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\n", 9)
	// Tool calls at index 0 under ids of their own, content parts, one
	// tool call as an object.
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"f\"}},{\"index\":0,\"id\":\"b\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]}}]}\n\n", 11)
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":[{\"type\":\"thinking\",\"thinking\":[{\"type\":\"text\",\"text\":\"h\"}]},{\"type\":\"text\",\"text\":\"a\"}]}}]}\n\n", 5)
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":{\"index\":0,\"id\":\"\",\"function\":{\"arguments\":\"x\"}}},\"finish_reason\":\"null\"}]}\n\n", 6)
	// Responses events: text only in a done event, a done event under
	// another item id, a call's arguments only in their done event.
	f.Add("data: {\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"delta\":\"He\"}\n\n"+
		"data: {\"type\":\"response.output_text.done\",\"item_id\":\"n\",\"text\":\"Hello\"}\n\n"+
		"data: {\"type\":\"response.function_call_arguments.done\",\"arguments\":\"{}\"}\n\n"+
		"data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"usage\":{\"output_tokens\":5}}}\n\n", 13)
	// Audio and images as output, errors outside the data, blank
	// keep-alive events, an object delta, other tools' deltas.
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"audio\":{\"id\":\"a\",\"transcript\":\"Hi\"}}}]}\n\n"+
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"audio\":{\"data\":\"AAAA\"},\"images\":[{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:,\"}}]}}]}\n\n"+
		"data:\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"audio\":{\"expires_at\":1}}}]}\n\ndata: [DONE]\n\n", 9)
	f.Add("error: {\"code\":400,\"message\":\"too long\"}\n\ndata: [DONE]\n\n", 5)
	f.Add("{\"error\":{\"message\":\"bare\"}}", 4)
	f.Add("data: {\"type\":\"response.reasoning.delta\",\"delta\":{\"content\":\"We\"}}\n\n"+
		"data: {\"type\":\"response.custom_tool_call_input.delta\",\"item_id\":\"c\",\"delta\":\"ls\"}\n\n"+
		"data: {\"type\":\"response.image_generation_call.partial_image\",\"item_id\":\"i\",\"partial_image_b64\":\"AA\"}\n\n"+
		"data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"computer_call\",\"id\":\"u\"}}\n\n", 17)
	// Line endings the format allows, a named error event, finish
	// reasons by which a server stops, custom and untyped tool calls,
	// the status of a final Responses event, a bare error frame.
	f.Add("\xef\xbb\xbfdata: {\"choices\":[{\"index\":3,\"delta\":{\"content\":\"a\",\"reasoning\":\"r\"}}]}\r\rdata: [DONE]\r\n\r", 3)
	f.Add("event: error\ndata: {\"code\":422,\"details\":\"no\"}\n\nevent:error\rdata: text\r\r", 5)
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"type\":\"custom\",\"custom\":{\"name\":\"x\",\"input\":\"p\"}},{\"index\":1,\"id\":\"d\",\"function\":{\"name\":\"f\"}}]},\"finish_reason\":\"abort\"}]}\n\ndata: [DONE]\n\n", 7)
	f.Add("data: {\"type\":\"response.done\",\"response\":{\"status\":\"cancelled\"}}\n\ndata: {\"error\":{\"message\":\"m\"}}\n\n", 9)
	f.Fuzz(func(t *testing.T, body string, step int) {
		if step <= 0 || step > 1<<16 {
			step = 1 << 16
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			fuzzRead(t, body, step)
			fuzzWhole(t, body, step)
			fuzzResponse(t, body, step)
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
	var read strings.Builder
	for s.Next() {
		for _, ch := range s.Current().Choices {
			if ch.Index == 0 {
				read.WriteString(ch.Delta.Content)
			}
		}
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
	if acc := s.Accumulated(); len(acc.Choices) > 0 && acc.Choices[0].Message.Content != read.String() {
		t.Errorf("Accumulated() holds %q, the caller read %q", acc.Choices[0].Message.Content, read.String())
	}
}

// fuzzWhole makes a non-streaming call answered with body, an event
// stream delivered step bytes per read (see exchange.assemble), and
// checks how it ended.
func fuzzWhole(t *testing.T, body string, step int) {
	oc := openai.NewClient(option.WithBaseURL("http://fuzz.invalid/v1/"), option.WithAPIKey("x"),
		option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: rawTransport{body, step}}))
	c := tokenpace.NewClient(oc, tokenpace.WithMaxLineBytes(1<<12))
	var tm *tokenpace.Timing
	res, err := c.New(context.Background(), chat("m", 5), tokenpace.WithTimingInto(&tm))
	var se *tokenpace.StreamError
	switch {
	case err != nil && !errors.As(err, &se):
		t.Errorf("New() error = %v (%T), want nil or a *StreamError", err, err)
	case err == nil && res == nil:
		t.Error("New() = nil, nil")
	case tm == nil || tm.End.IsZero():
		t.Errorf("Timing %+v, want one that ended", tm)
	}
}

// fuzzResponse reads body as a Responses stream, delivered step bytes per
// read, and as the answer to a non-streaming Responses call, and checks
// how each ended: the text the caller was given holds every text delta it
// read, in order.
func fuzzResponse(t *testing.T, body string, step int) {
	oc := openai.NewClient(option.WithBaseURL("http://fuzz.invalid/v1/"), option.WithAPIKey("x"),
		option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: rawTransport{body, step}}))
	c := tokenpace.NewClient(oc, tokenpace.WithMaxLineBytes(1<<12))
	s := c.NewResponseStreaming(context.Background(), respond("m", 5))
	var deltas []string
	for s.Next() {
		if ev := s.Current(); ev.Type == "response.output_text.delta" && ev.Delta != "" {
			deltas = append(deltas, ev.Delta)
		}
	}
	s.Close()
	var se *tokenpace.StreamError
	if err := s.Err(); err != nil && !errors.As(err, &se) {
		t.Errorf("Responses: Err() = %v (%T), want nil or a *StreamError", err, err)
	}
	if tm := s.Timing(); tm.End.IsZero() {
		t.Error("Responses: Timing has no end")
	}
	text := s.Text()
	for _, d := range deltas {
		i := strings.Index(text, d)
		if i < 0 {
			t.Errorf("Responses: Text() %q lacks the delta %q in order", s.Text(), d)
			break
		}
		text = text[i+len(d):]
	}
	if _, err := c.NewResponse(context.Background(), respond("m", 5)); err != nil && !errors.As(err, &se) {
		t.Errorf("NewResponse() error = %v (%T), want nil or a *StreamError", err, err)
	}
}

// FuzzErrorBody feeds arbitrary error responses, compressed or not, to a
// streaming and a non-streaming call: each must end with a *StreamError
// that keeps the status, never panic, hang or read without bound.
func FuzzErrorBody(f *testing.F) {
	f.Add(500, false, []byte(`{"error":{"message":"boom","type":"server_error"}}`))
	f.Add(429, true, []byte(`{"error":{"message":"slow down"}}`))
	f.Add(404, false, []byte("<html>not found</html>"))
	f.Add(503, true, []byte{0x1f, 0x8b, 0x08})
	f.Add(400, false, bytes.Repeat([]byte("x"), 70<<10))
	f.Fuzz(func(t *testing.T, status int, compress bool, body []byte) {
		status = 400 + (status%200+200)%200 // 400–599
		res := func() *http.Response {
			h := http.Header{"Content-Type": {"application/json"}}
			if compress {
				h.Set("Content-Encoding", "gzip")
			}
			return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(bytes.NewReader(body))}
		}
		oc := openai.NewClient(option.WithBaseURL("http://fuzz.invalid/v1/"), option.WithAPIKey("x"),
			option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: fixedTransport(res)}))
		c := tokenpace.NewClient(oc)
		s := c.NewStreaming(context.Background(), chat("m", 5))
		for s.Next() {
		}
		s.Close()
		_, werr := c.New(context.Background(), chat("m", 5))
		for _, err := range []error{s.Err(), werr} {
			var se *tokenpace.StreamError
			var ae *openai.Error
			if !errors.As(err, &se) || (se.Kind != tokenpace.KindRequest && se.Kind != tokenpace.KindTooLarge) {
				t.Fatalf("Err() = %v (%T), want a KindRequest or KindTooLarge *StreamError", err, err)
			}
			if !errors.As(err, &ae) || ae.StatusCode != status {
				t.Errorf("Err() = %v, want an *openai.Error of status %d", err, status)
			}
		}
	})
}
