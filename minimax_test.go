package tokenpace_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
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

// TestMiniMaxBaseRespRequestErrors: MiniMax refuses a request with status
// 200 and its own code in base_resp, streamed or not: 2013 for invalid
// parameters, 1004 and 2049 for a key it does not take, 1026 and 1042 for
// an input it will not read, 1008 for a balance spent
// (platform.minimax.io/docs/api-reference/errorcode). With no status,
// each counted as the server's failure, and a Router's breaker opened
// on a server that was well after one caller's bad request. The caller
// now gets the status each code stands for, and the breaker stays
// closed; the rate limit (1002) and a failure of MiniMax's own (1000,
// 1024) still count.
func TestMiniMaxBaseRespRequestErrors(t *testing.T) {
	for _, tt := range []struct {
		code   int
		msg    string
		status int
	}{
		{2013, "invalid params, tool call id is invalid", http.StatusBadRequest},
		{1004, "login fail: Please carry the API secret key in the 'Authorization' field of the request header", http.StatusUnauthorized},
		{2049, "invalid api key", http.StatusUnauthorized},
		{1026, "input new_sensitive", http.StatusBadRequest},
		{1042, "invisible character ratio limit", http.StatusBadRequest},
		{1008, "insufficient balance", http.StatusPaymentRequired},
		{1002, "rate limit exceeded(RPM)", http.StatusTooManyRequests},
		{1024, "internal error", 0},
	} {
		t.Run(strconv.Itoa(tt.code), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				body := fmt.Sprintf(`{"id":"05b81ba1e6d5e5bd8d3b4c9f0ee1a6b9","choices":null,"created":1761000000,"model":"MiniMax-M2","object":"chat.completion.chunk","usage":{"total_tokens":0,"prompt_tokens":0,"completion_tokens":0},"input_sensitive":false,"output_sensitive":false,"base_resp":{"status_code":%d,"status_msg":%q}}`, tt.code, tt.msg)
				url, hc := serve(t, byModel(map[string]http.Handler{"minimax": sseBody("data: " + body + "\n\n")}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				r, err := tokenpace.NewRouter(c, tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}}, tokenpace.Route{Name: "minimax", Model: "minimax"})
				if err != nil {
					t.Fatal(err)
				}
				for i := range 2 {
					s := r.NewStreaming(context.Background(), chat("minimax", 8))
					readAll(t, s)
					err := s.Err()
					if tt.status == 0 || tt.status == http.StatusTooManyRequests {
						if i == 1 && !errors.Is(err, tokenpace.ErrCircuitOpen) {
							t.Errorf("call 2: %v; want the breaker open: the server failed", err)
						}
						if i == 1 {
							break
						}
					} else if errors.Is(err, tokenpace.ErrCircuitOpen) {
						t.Fatalf("call %d: %v; the request's refusals opened the breaker", i+1, err)
					}
					var oe *openai.Error
					if !errors.As(err, &oe) || oe.Message != tt.msg || oe.Code != strconv.Itoa(tt.code) || oe.StatusCode != cmp.Or(tt.status, http.StatusOK) {
						t.Errorf("call %d: Err() = %v; want the server's error %q, code %d, status %d", i+1, err, tt.msg, tt.code, cmp.Or(tt.status, http.StatusOK))
					}
				}
			})
		})
	}
}
