package tokenpace_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

func TestStreamingHeaders(t *testing.T) {
	sse := script("text/event-stream", contentEvent("a"), "data: [DONE]\n\n")
	tests := []struct {
		name    string
		handler http.Handler // nil: the simulator
		want    tokenpace.StreamHeaders
		stream  bool // Streaming.ContentType is text/event-stream
	}{
		{name: "simulator", want: tokenpace.StreamHeaders{ContentType: "text/event-stream", CacheControl: "no-cache", AccelBuffering: "no"}, stream: true},
		{name: "bare event stream", handler: sse, want: tokenpace.StreamHeaders{ContentType: "text/event-stream"}, stream: true},
		{name: "Helicone's cache hit", handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Helicone-Cache", "HIT")
			w.Header().Set("Helicone-Cache-Bucket-Idx", "0")
			sse.ServeHTTP(w, r)
		}), want: tokenpace.StreamHeaders{ContentType: "text/event-stream", Cache: "HIT"}, stream: true},
		{name: "Cloudflare AI Gateway's cache miss", handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("cf-aig-cache-status", "MISS")
			sse.ServeHTTP(w, r)
		}), want: tokenpace.StreamHeaders{ContentType: "text/event-stream", Cache: "MISS"}, stream: true},
		{name: "JSON instead of a stream", handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Header().Set("Cache-Control", "max-age=60")
			w.Header().Set("Set-Cookie", "session=s3cret")
			w.Header().Set("X-Accel-Buffering", strings.Repeat("y", 1000))
			_, _ = w.Write([]byte(`{"id":"x"}`))
		}), want: tokenpace.StreamHeaders{ContentType: "application/json; charset=utf-8", CacheControl: "max-age=60", AccelBuffering: strings.Repeat("y", 256)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var c *tokenpace.Client
				if tt.handler == nil {
					c = simClient(t, []simulate.Option{simulate.WithModel("m", &simulate.Fixed{TTFT: 10 * time.Millisecond, ITL: time.Millisecond})})
				} else {
					url, hc := serve(t, tt.handler)
					c = tokenpace.NewClient(openaiClient(url, hc))
				}
				s := c.NewStreaming(context.Background(), chat("m", 3))
				drain(t, s, 0)
				s.Close()
				tm := s.Timing()
				if tm.Streaming != tt.want {
					t.Errorf("Streaming = %+v, want %+v", tm.Streaming, tt.want)
				}
				if got := tm.Streaming.ContentType == "text/event-stream"; got != tt.stream {
					t.Errorf("Streaming.ContentType == text/event-stream: %v, want %v", got, tt.stream)
				}
			})
		})
	}
}

func TestStreamingHeadersRouter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{}, []simulate.Option{
			simulate.WithModel("m", &simulate.Fixed{TTFT: 10 * time.Millisecond, ITL: time.Millisecond}),
		}, route("m"))
		s := r.NewStreaming(context.Background(), chat("m", 3))
		readAll(t, s)
		tm := s.Timing()
		if got := tm.Streaming; got.ContentType != "text/event-stream" || got.AccelBuffering != "no" {
			t.Errorf("Router call: Streaming = %+v, want text/event-stream with X-Accel-Buffering no", got)
		}
		// A Router call lists its attempt even when it made only one.
		if got, want := kinds(tm), []tokenpace.AttemptKind{tokenpace.AttemptFirst}; !slices.Equal(got, want) {
			t.Errorf("kinds = %v, want %v", got, want)
		}
	})
}
