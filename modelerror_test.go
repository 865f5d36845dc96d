package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestFailedDependencyOfTheCaller: a managed endpoint answers 424 when the
// model server behind it refused the request, and names that server's
// status: Azure Machine Learning in a header, SageMaker in the body's
// OriginalStatusCode. A prompt over the model's context refused with 400
// there is the caller's request, answered the same to every try: it is
// sent once, and a breaker does not count it. The upstream's 503 is sent
// again and counted.
func TestFailedDependencyOfTheCaller(t *testing.T) {
	const msg = "This model's maximum context length is 4096 tokens."
	for _, tc := range []struct {
		name, header, body string
		requests           int
		open               bool
	}{
		{"azureml 400", "400", `{"message":"` + msg + `"}`, 1, false},
		{"sagemaker 400", "", `{"ErrorCode":"CLIENT_ERROR_FROM_MODEL","OriginalStatusCode":400,"OriginalMessage":"bad","message":"` + msg + `"}`, 1, false},
		{"azureml 503", "503", `{"message":"` + msg + `"}`, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				_, hc, counts := serveCounting(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
					if tc.header != "" {
						w.Header().Set("ms-azureml-model-error-statuscode", tc.header)
					}
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusFailedDependency)
					_, _ = w.Write([]byte(tc.body))
				})
				c := tokenpace.NewClient(openai.NewClient(option.WithBaseURL("http://replay.invalid/v1/"), option.WithHTTPClient(hc),
					option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(2)))
				r, err := tokenpace.NewRouter(c, tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}},
					tokenpace.Route{Name: "endpoint", Model: "m"})
				if err != nil {
					t.Fatal(err)
				}
				s := r.NewStreaming(context.Background(), chat("m", 64))
				readAll(t, s)
				var ae *openai.Error
				if !errors.As(s.Err(), &ae) || ae.StatusCode != http.StatusFailedDependency || ae.Message != msg {
					t.Errorf("Err() = %v; want the 424 with the server's message %q", s.Err(), msg)
				}
				if n := counts.of("/v1/chat/completions"); n != tc.requests {
					t.Errorf("%d requests, want %d", n, tc.requests)
				}
				s = r.NewStreaming(context.Background(), chat("m", 64))
				readAll(t, s)
				if got := errors.Is(s.Err(), tokenpace.ErrCircuitOpen); got != tc.open {
					t.Errorf("second call: Err() = %v; circuit open %v, want %v", s.Err(), got, tc.open)
				}
			})
		})
	}
}
