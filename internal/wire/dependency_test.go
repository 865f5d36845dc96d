package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestFailedDependency: a 424 is marked to be sent again, unless the
// server said otherwise; other statuses are left as they are.
func TestFailedDependency(t *testing.T) {
	for _, tc := range []struct {
		status int
		header string
		want   string
	}{
		{http.StatusFailedDependency, "", "true"},
		{http.StatusFailedDependency, "false", "false"},
		{http.StatusBadRequest, "", ""},
		{http.StatusUnprocessableEntity, "", ""},
	} {
		h := http.Header{}
		if tc.header != "" {
			h.Set("X-Should-Retry", tc.header)
		}
		res := FailedDependency(&http.Response{StatusCode: tc.status, Header: h})
		if got := res.Header.Get("X-Should-Retry"); got != tc.want {
			t.Errorf("FailedDependency(%d, X-Should-Retry %q): X-Should-Retry %q, want %q", tc.status, tc.header, got, tc.want)
		}
	}
	if FailedDependency(nil) != nil {
		t.Error("FailedDependency(nil) != nil")
	}
}

// TestFailedDependencyOfTheCaller: a 424 that names the status its
// upstream, the model's container, answered is that status: a 4xx other
// than 408 and 429 is the caller's request refused, marked not to be sent
// again (SageMaker's ModelError and Bedrock's ModelErrorException carry it
// in the body, Azure Machine Learning's online endpoints in a header); the
// upstream's 5xx, 408 or 429 is sent again; the body stays readable.
func TestFailedDependencyOfTheCaller(t *testing.T) {
	for _, tc := range []struct {
		name, body, header string
		want               string
	}{
		{"SageMaker 400", `{"ErrorCode":"CLIENT_ERROR_FROM_MODEL","OriginalStatusCode":400,"OriginalMessage":"{\"object\":\"error\",\"message\":\"This model's maximum context length is 4096 tokens.\"}","message":"Received client error (400) from primary with message \"…\"."}`, "", "false"},
		{"SageMaker 500", `{"ErrorCode":"SERVER_ERROR_FROM_MODEL","OriginalStatusCode":500,"OriginalMessage":"CUDA error","message":"Received server error (500) from primary"}`, "", "true"},
		{"Bedrock 422", `{"message":"Validation failed","originalStatusCode":422,"resourceName":"arn:aws:sagemaker:us-east-1:1:endpoint/x"}`, "", "false"},
		{"Bedrock 429", `{"message":"Too many requests","originalStatusCode":429}`, "", "true"},
		{"Azure ML 400", `{"message":"An unexpected error occurred in scoring script."}`, "400", "false"},
		{"Azure ML 503", `{"message":"An unexpected error occurred in scoring script."}`, "503", "true"},
		{"Requesty", `{"error":{"message":"Provider response missing usage","type":"failed_dependency"}}`, "", "true"},
	} {
		h := http.Header{}
		if tc.header != "" {
			h.Set("ms-azureml-model-error-statuscode", tc.header)
		}
		res := FailedDependency(&http.Response{StatusCode: http.StatusFailedDependency, Header: h, Body: io.NopCloser(strings.NewReader(tc.body))})
		if got := res.Header.Get("X-Should-Retry"); got != tc.want {
			t.Errorf("FailedDependency(%s): X-Should-Retry %q, want %q", tc.name, got, tc.want)
		}
		if b, _ := io.ReadAll(res.Body); string(b) != tc.body {
			t.Errorf("FailedDependency(%s): body %q, want %q", tc.name, b, tc.body)
		}
	}
	if FailedDependency(nil) != nil {
		t.Error("FailedDependency(nil) != nil")
	}
}

// brokenBody gives its text, then err: a body whose connection broke.
type brokenBody struct {
	r   io.Reader
	err error
}

func (b *brokenBody) Read(p []byte) (int, error) {
	if n, err := b.r.Read(p); err != io.EOF {
		return n, err
	}
	return 0, b.err
}

func (b *brokenBody) Close() error { return nil }

// TestFailedDependencyBodyBroken: a 424 whose body breaks while its
// upstream's status is looked for keeps its read error for the bound
// that reads it next, which says the body was unreadable, as it said
// before the status was looked for; the text read stays first.
func TestFailedDependencyBodyBroken(t *testing.T) {
	body := &brokenBody{strings.NewReader(`{"error":{"message":"upstream`), io.ErrUnexpectedEOF}
	res := FailedDependency(&http.Response{StatusCode: http.StatusFailedDependency, Header: http.Header{}, Body: body})
	if got := res.Header.Get("X-Should-Retry"); got != "true" {
		t.Errorf("X-Should-Retry %q, want %q", got, "true")
	}
	want := "error body of status 424 unreadable"
	if cut := BoundErrorBody(res); cut != want {
		t.Errorf("BoundErrorBody after FailedDependency = %q, want %q", cut, want)
	}
}
