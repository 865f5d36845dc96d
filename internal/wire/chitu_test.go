package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestChituOverload: Chitu's 403 for a request past its capacity, as
// BoundErrorBody makes its body, is an overload; another 403 (a key
// refused), the same words under another status, are not, and the body
// stays readable.
func TestChituOverload(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   bool
	}{
		{403, `{"detail":"exceeding server processing capacity"}`, true},
		{403, `{"detail":"Not authenticated"}`, false},
		{403, `{"error":{"message":"Forbidden","type":"permission_error"}}`, false},
		{400, `{"detail":"exceeding server processing capacity"}`, false},
	} {
		res := &http.Response{StatusCode: tc.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tc.body))}
		if cut := BoundErrorBody(res); cut != "" {
			t.Fatalf("BoundErrorBody(%s) = %q", tc.body, cut)
		}
		if got := ChituOverload(res); got != tc.want {
			t.Errorf("ChituOverload(%d %s) = %v, want %v", tc.status, tc.body, got, tc.want)
		}
		if b, _ := io.ReadAll(res.Body); len(b) == 0 {
			t.Errorf("%d %s: body after is empty, want it readable", tc.status, tc.body)
		}
	}
}
