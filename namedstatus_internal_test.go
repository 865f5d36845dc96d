package tokenpace

import "testing"

// TestNamedStatus: only a code from 400 to 499 whose error's type is that
// status's name, as Python's HTTPStatus names it, is the request's status.
func TestNamedStatus(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want int
	}{
		{`{"object": "error", "message": "m", "type": "BAD_REQUEST", "param": null, "code": 400}`, 400},
		{`{"message":"m","type":"NOT_FOUND","code":404}`, 404},
		{`{"message":"m","type":"UNPROCESSABLE_ENTITY","code":422}`, 422},
		{`{"message":"m","type":"INTERNAL_SERVER_ERROR","code":500}`, 0},
		{`{"message":"m","type":"BadRequestError","code":400}`, 0},
		{`{"message":"m","type":"BAD_REQUEST","code":404}`, 0},
		{`{"message":"m","type":"BAD_REQUEST","code":"400"}`, 0},
		{`{"message":"m","type":"BAD_REQUEST","code":400.5}`, 0},
		{`{"message":"m","type":"BAD_REQUEST"}`, 0},
		{`{"message":"m","code":400}`, 0},
		{`"a message"`, 0},
		{``, 0},
	} {
		if got := namedStatus(tt.raw); got != tt.want {
			t.Errorf("namedStatus(%s) = %d, want %d", tt.raw, got, tt.want)
		}
	}
}
