package wire

import (
	"net/http"
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
