package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// Without --model, a server that refuses the model list is reported with
// its status and message, never the key, instead of "lists no model".
func TestBenchReportsUnauthorizedModelList(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	const key = "sk-test-echoed-0123456789"
	t.Setenv("OPENAI_API_KEY", key)
	srv := unauthorizedServer(t, func(*http.Request) string { return "Incorrect API key provided: " + key })
	code, stdout, stderr := bench(t, t.Context(), "--base-url", srv.URL+"/v1", "--requests", "2")
	if code != 1 || stdout != "" {
		t.Errorf("exit = %d, stdout %q, want 1 and nothing", code, stdout)
	}
	for _, want := range []string{"401 Unauthorized", "Incorrect API key provided", "--model"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr = %q, want it to contain %q", stderr, want)
		}
	}
	if strings.Contains(stderr, "lists no model") || strings.Contains(stdout+stderr, key) {
		t.Errorf("stderr = %q, want the 401 reported without the key", stderr)
	}
}

// unauthorizedServer starts a server that answers every request 401 with
// OpenAI's invalid_api_key error, whose message is message(r); it is
// closed when the test ends.
func unauthorizedServer(t *testing.T, message func(r *http.Request) string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":{"message":"` + message(r) + `","type":"invalid_request_error","code":"invalid_api_key"}}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}
