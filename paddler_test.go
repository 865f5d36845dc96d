package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestPaddlerTemplateRefusalNotCounted: Paddler, a llama.cpp load
// balancer, begins its 200 event stream before its agent renders the
// chat template, and sends the template's refusal of the messages (its
// raise_exception, "Model's chat template raised an exception: '…'")
// inside it as an error of type "server_error", then [DONE]
// (intentee/paddler paddler_agent/src/prepare_conversation_history_request.rs,
// paddler_balancer/src/compatibility/openai_service/openai_error.rs). The
// same messages are refused the same way every time: the caller must get
// status 400 with Paddler's words, as from llama-server, and a breaker
// must not count it. Before, it was status 200 and a breaker of one
// failure opened on a balancer that is well.
func TestPaddlerTemplateRefusalNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "paddler-chat-template-refusal-error-event", http.StatusBadRequest, chatErr(t))
	})
}

// TestPaddlerResponsesTemplateRefusalNotCounted: the same refusal on
// Paddler's /v1/responses comes as response.created and
// response.in_progress, then response.failed whose error is
// {"code":"server_error","message":…} with Paddler's words
// (paddler_balancer/src/compatibility/openai_service/responses_streaming_response_transformer.rs,
// responses_response_builder.rs). The caller must get status 400 with the
// words, sent once; a Router goes on to its next route and its breaker
// stays closed.
func TestPaddlerResponsesTemplateRefusalNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx := loadConformance(t)["paddler-responses-template-refusal-failed"]
		wantResponsesFailed(t, fx, tokenpace.Policy{}, http.StatusBadRequest, true)
	})
}
