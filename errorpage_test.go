package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestErrorPageMessage: what the caller reads of an error page or text:
// Express's page, whose title says only "Error", gives the words of its
// <pre>, on a stream and in a whole answer; a text repeating the
// request's key in quotes gives the message with the key hidden, and the
// key is nowhere in the error.
func TestErrorPageMessage(t *testing.T) {
	const key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123"
	for _, tt := range []struct {
		name, contentType, body, want string
		status                        int
	}{
		{"Express's 404 page", "text/html; charset=utf-8",
			"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot POST /v1/chat/completions</pre>\n</body>\n</html>\n",
			"Cannot POST /v1/chat/completions", http.StatusNotFound},
		{"a text repeating the key in quotes", "text/plain; charset=utf-8",
			"Invalid API key: '" + key + "'\n", "Invalid API key: '[hidden]'", http.StatusUnauthorized},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", tt.contentType)
					w.WriteHeader(tt.status)
					_, _ = w.Write([]byte(tt.body))
				}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				s := c.NewStreaming(context.Background(), chat("tiny", 8))
				for s.Next() {
				}
				s.Close()
				_, whole := c.New(context.Background(), chat("tiny", 8))
				for who, err := range map[string]error{"stream": s.Err(), "whole": whole} {
					var se *tokenpace.StreamError
					var ae *openai.Error
					if !errors.As(err, &se) || se.Kind != tokenpace.KindRequest || !errors.As(err, &ae) ||
						ae.StatusCode != tt.status || ae.Message != tt.want {
						t.Errorf("%s: Err() = %v; want a KindRequest %d with the message %q", who, err, tt.status, tt.want)
					}
					if err != nil && (strings.Contains(err.Error(), key) || strings.Contains(ae.Message, key)) {
						t.Errorf("%s: the key in the error", who)
					}
				}
			})
		})
	}
}
