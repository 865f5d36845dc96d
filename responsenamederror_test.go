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

// TestResponsesNamedErrorKeepsItsCode: a Responses error event that only
// its SSE "event: error" line names, its data a bare {code, message} with
// no type, is read by its code as well as its message: a code that names
// the request's fault (invalid_prompt) makes it the request's 400, not the
// server's failure that a breaker counts. Bedrock Mantle's typeless error objects, read by their
// message, had taken the code away.
func TestResponsesNamedErrorKeepsItsCode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const msg = "Invalid prompt: your prompt was flagged."
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0," +
				"\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"model\":\"m\",\"output\":[]}}\n\n" +
				"event: error\ndata: {\"code\":\"invalid_prompt\",\"message\":\"" + msg + "\"}\n\n"))
		}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		got := readResponseStream(c.NewResponseStreaming(context.Background(), respond("m", 64)))
		var ae *openai.Error
		if !isErrorEvent(got.err, http.StatusBadRequest, msg) || !errors.As(got.err, &ae) || ae.Code != "invalid_prompt" {
			t.Errorf("Err() = %v; want an error event of status 400, code invalid_prompt and the server's message", got.err)
		}
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}},
			tokenpace.Route{Name: "first", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			got := readResponseStream(r.NewResponseStreaming(context.Background(), respond("m", 64)))
			if errors.Is(got.err, tokenpace.ErrCircuitOpen) || !isErrorEvent(got.err, http.StatusBadRequest, msg) {
				t.Errorf("Router call %d: Err() = %v; want the request's 400, the breaker closed", i+1, got.err)
			}
		}
	})
}
