package tokenpace_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestEventFraming checks the event-stream framing servers use in the wild:
// CRLF line ends, comments and keep-alives, event names and ids, data
// split over several lines, events split across reads.
func TestEventFraming(t *testing.T) {
	const chunk = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}`
	const stop = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	split := strings.Index(chunk, `"choices"`)
	tests := []struct {
		name   string
		events []string // one write each
		tokens int
		kind   tokenpace.ErrorKind // 0: clean end
	}{
		{name: "LF", events: []string{"data: " + chunk + "\n\n", "data: " + stop + "\n\ndata: [DONE]\n\n"}, tokens: 1},
		{name: "CRLF", events: []string{"data: " + chunk + "\r\n\r\n", "data: " + stop + "\r\n\r\ndata: [DONE]\r\n\r\n"}, tokens: 1},
		{name: "no space after colon", events: []string{"data:" + chunk + "\n\n", "data:" + stop + "\n\ndata:[DONE]\n\n"}, tokens: 1},
		{name: "comments and keep-alives", events: []string{": ping\n\n", ": OPENROUTER PROCESSING\n\n", "data: " + chunk + "\n\n", ": ping\n\n", "data: " + stop + "\n\ndata: [DONE]\n\n"}, tokens: 1},
		{name: "event name and id", events: []string{"event: message\nid: 7\nretry: 100\ndata: " + chunk + "\n\n", "event: message\nid: 8\ndata: " + stop + "\n\ndata: [DONE]\n\n"}, tokens: 1},
		// Lines join with a newline, which JSON takes as space between tokens.
		{name: "data over two lines", events: []string{"data: " + chunk[:split] + "\ndata: " + chunk[split:] + "\n\n", "data: " + stop + "\n\ndata: [DONE]\n\n"}, tokens: 1},
		{name: "event split across reads", events: []string{"da", "ta: " + chunk[:30], chunk[30:] + "\n", "\n", "data: " + stop[:20], stop[20:] + "\n\ndata: [DONE]\n\n"}, tokens: 1},
		{name: "two events in one read", events: []string{"data: " + chunk + "\n\ndata: " + chunk + "\n\n", "data: " + stop + "\n\ndata: [DONE]\n\n"}, tokens: 2},
		// A stream cut before its finish reason is cut, [DONE] or not: a
		// relay (one-api) writes [DONE] when its upstream breaks.
		{name: "[DONE] before any finish reason", events: []string{"data: " + chunk + "\n\n", "data: [DONE]\n\n"}, tokens: 1, kind: tokenpace.KindTruncated},
		{name: "last event without blank line", events: []string{"data: " + chunk + "\n\n", "data: [DONE]"}, tokens: 1, kind: tokenpace.KindTruncated},
		{name: "data after [DONE] ignored", events: []string{"data: " + chunk + "\n\n", "data: " + stop + "\n\ndata: [DONE]\n\n", "data: {oops\n\n"}, tokens: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, script("text/event-stream", tt.events...))
				c := tokenpace.NewClient(openaiClient(url, hc))
				s := c.NewStreaming(context.Background(), chat("m", 10))
				drain(t, s, 0)
				if tt.kind == 0 {
					if err := s.Err(); err != nil {
						t.Fatalf("Err() = %v, want nil", err)
					}
				} else {
					checkKind(t, s.Err(), tt.kind)
				}
				if got := s.Timing().OutputTokens; got != tt.tokens {
					t.Errorf("OutputTokens = %d, want %d", got, tt.tokens)
				}
			})
		})
	}
}
