package tokenpace_test

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// The Content-Encoding of a response, as servers and the relays in front
// of them set it.

// TestStaleContentEncoding: a relay whose HTTP client decoded its
// upstream's gzip but that forwards the upstream's headers, among them
// Content-Encoding: gzip, sends a plain body under that label: Open
// WebUI's OpenAI proxy (aiohttp decodes and keeps the header,
// aio-libs/aiohttp#4462; open-webui/open-webui#23920, fixed by #23928,
// April 2026), and relays built on httpx alike
// (qualixar/superlocalmemory#79). Go's transport, which asked for gzip,
// failed on the first read ("gzip: invalid header"): the caller lost a
// whole answer (KindReset, no text) and an error body's message and
// kind (KindTooLarge, "unreadable"). The body is read as it came,
// whether the client asked for gzip or for identity.
func TestStaleContentEncoding(t *testing.T) {
	const refusal = `{"error":{"message":"prompt too long","type":"invalid_request_error","code":"context_length_exceeded"}}`
	parts := []string{chunk("c", "The answer", "", ""), chunk("c", " is 42.", "stop", ""), "data: [DONE]\n\n"}
	whole := `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"` + answer + `"},"finish_reason":"stop"}]}`
	for _, asked := range []string{"", "identity"} {
		t.Run("asked "+asked, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Encoding", "gzip") // the upstream's, stale
					switch {
					case r.Header.Get("X-Refuse") != "":
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusBadRequest)
						_, _ = io.WriteString(w, refusal)
					case !strings.Contains(readBody(r), `"stream":true`):
						w.Header().Set("Content-Type", "application/json")
						_, _ = io.WriteString(w, whole)
					default:
						w.Header().Set("Content-Type", "text/event-stream")
						rc := http.NewResponseController(w)
						for _, p := range parts {
							_, _ = io.WriteString(w, p)
							_ = rc.Flush()
							time.Sleep(100 * time.Millisecond)
						}
					}
				}))
				var opts []option.RequestOption
				if asked != "" {
					opts = append(opts, option.WithHeader("Accept-Encoding", asked))
				}
				c := tokenpace.NewClient(openaiClient(url, hc))
				s := c.NewStreaming(context.Background(), chat("m", 10), opts...)
				if got := readAll(t, s); got != answer || s.Err() != nil {
					t.Fatalf("stream read %q, Err() = %v; want %q, nil", got, s.Err(), answer)
				}
				tm := s.Timing()
				if len(tm.Chunks) != 2 || tm.Chunks[1].Sub(tm.Chunks[0]) != 100*time.Millisecond || tm.FinishReason != "stop" {
					t.Errorf("chunks %v, finish %q; want 2 chunks 100ms apart, stop", tm.Chunks, tm.FinishReason)
				}
				res, err := c.New(context.Background(), chat("m", 10), opts...)
				if err != nil || len(res.Choices) != 1 || res.Choices[0].Message.Content != answer {
					t.Errorf("New() = %+v, %v; want %q", res, err, answer)
				}
				s = c.NewStreaming(context.Background(), chat("m", 10), append(opts, option.WithHeader("X-Refuse", "1"))...)
				readAll(t, s)
				se := checkKind(t, s.Err(), tokenpace.KindRequest)
				var ae *openai.Error
				if !errors.As(se, &ae) || ae.StatusCode != http.StatusBadRequest || ae.Message != "prompt too long" ||
					se.Detail != "context_length_exceeded" {
					t.Errorf("refusal: %v (Detail %q); want the server's 400, its message and its name", s.Err(), se.Detail)
				}
			})
		})
	}
}

// TestGzipStreamArrivals: a stream the server compresses, flushing its
// compressor after each event as a compressing proxy that streams does
// (nginx's gzip module flushes with each buffer the upstream sends), is
// decoded as it arrives: each chunk is stamped when its compressed bytes
// came, not when the body ended, whether the client asked for gzip or
// for identity.
func TestGzipStreamArrivals(t *testing.T) {
	parts := []string{chunk("c", "a", "", ""), chunk("c", "b", "", ""), chunk("c", "c", "stop", ""), "data: [DONE]\n\n"}
	for _, asked := range []string{"", "identity"} {
		t.Run("asked "+asked, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/event-stream")
					w.Header().Set("Content-Encoding", "gzip")
					rc := http.NewResponseController(w)
					zw := gzip.NewWriter(w)
					for _, p := range parts {
						_, _ = io.WriteString(zw, p)
						_ = zw.Flush()
						_ = rc.Flush()
						time.Sleep(100 * time.Millisecond)
					}
					_ = zw.Close()
				}))
				var opts []option.RequestOption
				if asked != "" {
					opts = append(opts, option.WithHeader("Accept-Encoding", asked))
				}
				s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("m", 10), opts...)
				if got := readAll(t, s); got != "abc" || s.Err() != nil {
					t.Fatalf("read %q, Err() = %v; want %q, nil", got, s.Err(), "abc")
				}
				tm := s.Timing()
				for i, at := range tm.Chunks {
					if want := tm.Sent.Add(time.Duration(i) * 100 * time.Millisecond); !at.Equal(want) {
						t.Errorf("chunk %d at %v, want %v", i, at.Sub(tm.Sent), want.Sub(tm.Sent))
					}
				}
			})
		})
	}
}

// readBody returns r's body as a string.
func readBody(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	return string(b)
}
