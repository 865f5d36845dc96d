package tokenpace_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// minimaxRateLimited is MiniMax's answer to a request over its rate limit:
// status 200, no choices, a usage of zeros, and the failure only in
// base_resp (its status_code is not 0).
const minimaxRateLimited = `{"id":"05b81ba1e6d5e5bd8d3b4c9f0ee1a6b9","choices":null,"created":1761000000,"model":"MiniMax-M2","object":"%s","usage":{"total_tokens":0,"total_characters":0,"prompt_tokens":0,"completion_tokens":0},"input_sensitive":false,"output_sensitive":false,"base_resp":{"status_code":1002,"status_msg":"rate limit exceeded(RPM)"}}`

// MiniMax answers a failed request with status 200 and the failure in
// base_resp, streamed or not: the caller gets the server's error (an
// error event with its message and code), not a truncated stream or an
// answer.
func TestMiniMaxBaseRespError(t *testing.T) {
	tests := []struct {
		name   string
		stream bool
	}{
		{"whole", false},
		{"streamed", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var failing http.Handler = jsonAnswer(fmt.Sprintf(minimaxRateLimited, "chat.completion"))
				if tt.stream {
					failing = sseBody("data: " + fmt.Sprintf(minimaxRateLimited, "chat.completion.chunk") + "\n\n")
				}
				url, hc := serve(t, byModel(map[string]http.Handler{"minimax": failing}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				var err error
				if tt.stream {
					s := c.NewStreaming(context.Background(), chat("minimax", 8))
					readAll(t, s)
					err = s.Err()
				} else {
					_, err = c.New(context.Background(), chat("minimax", 8))
				}
				var oe *openai.Error
				if se := checkKind(t, err, tokenpace.KindErrorEvent); se == nil || !errors.As(err, &oe) || oe.Message != "rate limit exceeded(RPM)" || oe.Code != "1002" {
					t.Errorf("Err() = %v, want the server's error event %q, code 1002", err, "rate limit exceeded(RPM)")
				}
			})
		})
	}
}
