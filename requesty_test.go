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

// TestFailedDependencyIsTheServers: Requesty's router answers 424 Failed
// Dependency when its provider's answer is unusable ("Provider response
// missing usage", "Invalid provider response format"), a transient
// failure of the provider that its docs say to retry
// (testdata/conformance/requesty-424-provider-response-missing-usage.jsonl).
// Read as the caller's 4xx, it was sent once and a breaker never counted
// it: a route that answers 424 to every request stayed closed. It is now
// sent again as a 5xx is, and counted against the route.
func TestFailedDependencyIsTheServers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fx conformance
		fx.Reads = readFixture(t, "testdata/conformance/requesty-424-provider-response-missing-usage.jsonl", &fx)
		_, hc, counts := serveCounting(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
			replay(fx.recording)(w, r)
		})
		c := tokenpace.NewClient(openai.NewClient(option.WithBaseURL("http://replay.invalid/v1/"), option.WithHTTPClient(hc),
			option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(2)))
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}},
			tokenpace.Route{Name: "requesty", Model: fx.Request.Body.Model})
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewStreaming(context.Background(), chat(fx.Request.Body.Model, 64))
		readAll(t, s)
		var se *tokenpace.StreamError
		var ae *openai.Error
		if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindRequest || !errors.As(s.Err(), &ae) ||
			ae.StatusCode != http.StatusFailedDependency || ae.Message != fx.Expect.ErrorMessage {
			t.Errorf("Err() = %v; want a KindRequest 424 with the server's message %q", s.Err(), fx.Expect.ErrorMessage)
		}
		if n := counts.of("/v1/chat/completions"); n != 3 {
			t.Errorf("%d requests, want 3: the provider's failure is sent again, twice", n)
		}
		s = r.NewStreaming(context.Background(), chat(fx.Request.Body.Model, 64))
		readAll(t, s)
		if !errors.Is(s.Err(), tokenpace.ErrCircuitOpen) {
			t.Errorf("second call: Err() = %v, want ErrCircuitOpen: the route's 424 counts against it", s.Err())
		}
	})
}
