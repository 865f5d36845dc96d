package tokenpace_test

// A Stream where code written for openai-go's *ssestream.Stream expects
// what that stream does.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/tokenpace/tokenpace"
)

// TestZeroStream: openai-go's zero Stream has nothing (Next false, Close
// nil); tokenpace's panicked on a nil source.
func TestZeroStream(t *testing.T) {
	var s tokenpace.Stream[openai.ChatCompletionChunk]
	if s.Next() || s.Err() != nil || s.Close() != nil || s.Timing() == nil || s.Text() != "" {
		t.Errorf("zero Stream: Next, Err, Close, Timing, Text = %v, %v, %v, %v, %q; want false, nil, nil, a Timing, \"\"",
			s.Next(), s.Err(), s.Close(), s.Timing(), s.Text())
	}
}

// TestErrorEventAsSSEStreamError: an error event mid-stream ends
// openai-go's stream with an *ssestream.StreamError; tokenpace's ends with
// a *StreamError (KindErrorEvent) wrapping an *openai.Error, and code that
// asks errors.As for openai-go's type found nothing. Now it finds it, with
// openai-go's message.
func TestErrorEventAsSSEStreamError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"}}]}`+"\n\n")
			_, _ = io.WriteString(w, `data: {"error":{"message":"boom","type":"server_error"}}`+"\n\n")
		}))
		oc := openaiClient(url, hc)
		bare := oc.Chat.Completions.NewStreaming(context.Background(), chat("m", 8))
		for bare.Next() {
		}
		s := tokenpace.NewClient(oc).NewStreaming(context.Background(), chat("m", 8))
		readAll(t, s)
		var want, got *ssestream.StreamError
		if !errors.As(bare.Err(), &want) || !errors.As(s.Err(), &got) || got.Message != want.Message {
			t.Errorf("errors.As *ssestream.StreamError: bare %v, tokenpace %v (%v); want the same message", want, got, s.Err())
		}
		var apiErr *openai.Error
		if !errors.As(s.Err(), &apiErr) || apiErr.Message != "boom" {
			t.Errorf("errors.As *openai.Error = %v, want the server's message", apiErr)
		}
	})
}

// TestCloseEndsABlockedReadOfAMiddlewareBody: a caller's middleware
// answers with a body of its own (a cache, a stub) that does not end with
// the request's context. openai-go's Close closes the body, which ends a
// Next blocked on it; tokenpace's Close waited for that read for ever.
func TestCloseEndsABlockedReadOfAMiddlewareBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		mw := option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			go func() {
				_, _ = io.WriteString(pw, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"}}]}`+"\n\n")
			}()
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: pr, Request: req}, nil
		})
		oc := openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("k"), option.WithMaxRetries(0))
		s := tokenpace.NewClient(oc).NewStreaming(context.Background(), chat("m", 8), mw)
		if !s.Next() {
			t.Fatalf("Next() = false, Err() = %v; want the first chunk", s.Err())
		}
		next := make(chan bool)
		go func() { next <- s.Next() }()
		synctest.Wait() // Next blocks on the body
		_ = s.Close()   // deadlocked before: nothing but a close ends the read
		if <-next {
			t.Errorf("Next() after Close = true, want false")
		}
		if s.Text() != "a" {
			t.Errorf("Text() = %q, want %q", s.Text(), "a")
		}
	})
}
