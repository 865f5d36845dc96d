package codec

import (
	"testing"

	"github.com/openai/openai-go/v3/responses"
)

// TestIncompleteError checks that a response.incomplete whose response
// names an error (Antigravity Tools' lost upstream) is an error event,
// and that one of the API's own reasons stays a final event with its
// reason, its error null or not.
func TestIncompleteError(t *testing.T) {
	resp := Response(responses.ResponseNewParams{})
	const usage = `"usage":{"input_tokens":0,"input_tokens_details":{"cached_tokens":0},"output_tokens":0,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":0}`
	wantErrorEvents(t, resp, []decodedError{
		{"interrupted", `{"type":"response.incomplete","response":{"id":"resp-1","object":"response","status":"incomplete","model":"m","output":[],"incomplete_details":{"reason":"interrupted"},"error":{"code":"upstream_interrupted","message":"Gemini stream ended without finishReason."},` + usage + `},"sequence_number":9}`, "Gemini stream ended without finishReason."},
		{"empty", `{"type":"response.incomplete","response":{"id":"resp-1","object":"response","status":"incomplete","model":"m","output":[],"incomplete_details":{"reason":"interrupted"},"error":{"code":"empty_response","message":"Gemini stream ended without a final assistant message or tool call."}},"sequence_number":3}`, "Gemini stream ended without a final assistant message or tool call."},
		{"max_output_tokens", `{"type":"response.incomplete","response":{"id":"resp-1","object":"response","status":"incomplete","model":"m","output":[],"incomplete_details":{"reason":"max_output_tokens"},"error":null},"sequence_number":9}`, ""},
		{"max_output_tokens beside empty_response", `{"type":"response.incomplete","response":{"id":"resp-1","object":"response","status":"incomplete","model":"m","output":[],"incomplete_details":{"reason":"max_output_tokens"},"error":{"code":"empty_response","message":"Gemini stream ended without a final assistant message or tool call."}},"sequence_number":3}`, ""},
		{"content_filter beside empty_response", `{"type":"response.incomplete","response":{"id":"resp-1","object":"response","status":"incomplete","model":"m","output":[],"incomplete_details":{"reason":"content_filter"},"error":{"code":"empty_response","message":"Gemini stream ended without a final assistant message or tool call."}},"sequence_number":3}`, ""},
		{"completed with an error member", `{"type":"response.completed","response":{"id":"resp-1","object":"response","status":"completed","model":"m","output":[],"error":null},"sequence_number":9}`, ""},
	})
	ev, err := resp.Decode([]byte(`{"type":"response.incomplete","response":{"id":"resp-1","object":"response","status":"incomplete","model":"m","output":[],"incomplete_details":{"reason":"max_output_tokens"},"error":null},"sequence_number":9}`))
	if err != nil || !ev.Final || ev.End.Reason != "max_output_tokens" {
		t.Errorf("max_output_tokens: Decode = final %v, reason %q, %v; want final, max_output_tokens, no error", ev.Final, ev.End.Reason, err)
	}
	for _, reason := range []string{"max_output_tokens", "content_filter"} {
		ev, err := resp.Decode([]byte(`{"type":"response.incomplete","response":{"id":"resp-1","object":"response","status":"incomplete","model":"m","output":[],"incomplete_details":{"reason":"` + reason + `"},"error":{"code":"empty_response","message":"Gemini stream ended without a final assistant message or tool call."}},"sequence_number":3}`))
		if err != nil || !ev.Final || ev.End == nil || ev.End.Reason != reason {
			t.Errorf("%s beside an error: Decode = final %v, end %+v, %v; want final, %s, no error", reason, ev.Final, ev.End, err, reason)
		}
	}
}
