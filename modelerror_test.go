package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
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
				wantSentAndCounted(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
					if tc.header != "" {
						w.Header().Set("ms-azureml-model-error-statuscode", tc.header)
					}
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusFailedDependency)
					_, _ = w.Write([]byte(tc.body))
				}, "http://replay.invalid/v1/", "/v1/chat/completions", "m", http.StatusFailedDependency, msg, tc.requests, tc.open)
			})
		})
	}
}
