package main

import (
	"net/http"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/tokenpace/tokenpace/internal/servertest"
)

// closingServer serves chat streams, and the model list, as llama.cpp's
// server does (see servertest.Closing); it returns its base URL.
func closingServer(t *testing.T) string {
	return "http://" + servertest.Closing(t, func(req *http.Request) (string, string) {
		if strings.HasSuffix(req.URL.Path, "/models") {
			return "application/json", `{"object":"list","data":[{"id":"m","object":"model"}]}`
		}
		return "text/event-stream", `data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}` + "\n\ndata: [DONE]\n\n"
	}) + "/v1"
}

// bench against a server that closes every connection after a stream,
// while saying Keep-Alive, fails no request.
func TestBenchServerClosesAfterEachStream(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	for _, conc := range []string{"1", "4"} {
		out := benchJSON(t, t.Context(), 0, "--base-url", closingServer(t), "--model", "m", "--requests", "40",
			"--concurrency", conc, "--max-tokens", "1", "--warmup", "2")
		if *out.Completed != 40 || *out.Failed != 0 {
			t.Errorf("concurrency %s: completed, failed = %v, %v, want 40, 0 (errors %v)", conc, *out.Completed, *out.Failed, out.Errors)
		}
	}
}
