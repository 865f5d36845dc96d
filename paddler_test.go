package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
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
