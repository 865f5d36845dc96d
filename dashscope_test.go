package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestDashScopeOutputInspectionNotCounted: DashScope's content screen
// stops an answer it will not send with an error event inside the 200
// stream, code "data_inspection_failed", the refusal its error codes give
// status 400 ("<400> InternalError.Algo.DataInspectionFailed", the same
// screen's refusal of an input before the stream;
// help.aliyun.com/zh/model-studio/error-code#inappropriate-content). It
// counted as the server's failure: a breaker of one failure opened on a
// server that was well after one prompt it screened out. The caller now
// gets status 400 with the server's message, and the breaker stays
// closed.
func TestDashScopeOutputInspectionNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fx conformance
		fx.Reads = readFixture(t, "testdata/conformance/dashscope-output-inspection-error.jsonl", &fx)
		url, hc := serve(t, byModel(map[string]http.Handler{fx.Request.Body.Model: replay(fx.recording)}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}},
			tokenpace.Route{Name: "dashscope", Model: fx.Request.Body.Model})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			s := r.NewStreaming(context.Background(), chat(fx.Request.Body.Model, 64))
			readAll(t, s)
			if errors.Is(s.Err(), tokenpace.ErrCircuitOpen) {
				t.Fatalf("call %d: %v; the screened answers opened the breaker", i+1, s.Err())
			}
			var ae *openai.Error
			if !errors.As(s.Err(), &ae) || ae.StatusCode != http.StatusBadRequest || ae.Message != fx.Expect.ErrorMessage {
				t.Errorf("call %d: Err() = %v; want status 400 with the server's message %q", i+1, s.Err(), fx.Expect.ErrorMessage)
			}
		}
	})
}
