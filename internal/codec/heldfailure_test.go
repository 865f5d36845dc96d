package codec

import (
	"errors"
	"testing"

	"github.com/openai/openai-go/v3/responses"
)

// TestResponseFailedWithoutReason checks that a response.failed that gives
// no reason is held for the event after it: an error event that follows
// gives the stream its error (Azure OpenAI's content filter), any other
// event ends it with the failure, and at the end of the body HeldError
// returns it; a response.failed that gives its reason is its error at once.
func TestResponseFailedWithoutReason(t *testing.T) {
	const (
		bare   = `{"type":"response.failed","sequence_number":1,"response":{"id":"resp_1","status":"failed","error":null,"model":"gpt-5.1","output":[]}}`
		reason = `{"type":"error","sequence_number":2,"error":{"type":"invalid_request_error","code":"content_policy_violation","message":"filtered","param":null}}`
		given  = `{"type":"response.failed","sequence_number":1,"response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"boom"},"output":[]}}`
		other  = `{"type":"response.in_progress","sequence_number":2,"response":{"id":"resp_1","status":"in_progress","output":[]}}`
	)
	message := func(err error) string {
		var e *Error
		if !errors.As(err, &e) || e.Server == nil {
			return "not a server error"
		}
		return e.Server.Code + ": " + e.Server.Message
	}
	for _, tc := range []struct {
		name   string
		events []string
		want   string // the last event's error, "" for none
		held   bool   // HeldError after the last event
	}{
		{"reason in the error event after it", []string{bare, reason}, "content_policy_violation: filtered", true},
		{"no event after it", []string{bare}, "", true},
		{"another event after it", []string{bare, other}, ": ", true},
		{"reason in the response", []string{given}, "server_error: boom", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dec := DecoderFor(Response(responses.ResponseNewParams{}))
			var err error
			for i, e := range tc.events {
				var ev Event
				ev, err = dec.Decode([]byte(e))
				if i == 0 && e == bare && (err != nil || ev.Chunk == nil || ev.Outputs != 0) {
					t.Fatalf("Decode(bare response.failed) = %+v, %v, want an event with no output, nil", ev, err)
				}
			}
			got := ""
			if err != nil {
				got = message(err)
			}
			if got != tc.want {
				t.Errorf("the last event's error = %q, want %q", got, tc.want)
			}
			held := dec.(ErrorHolder).HeldError()
			if (held != nil) != tc.held {
				t.Errorf("HeldError() = %v, want one: %v", held, tc.held)
			}
		})
	}
}
