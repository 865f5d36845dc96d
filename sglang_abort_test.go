package tokenpace_test

import "testing"

// TestSGLangRequestErrorInStream replays SGLang refusing a request in its
// scheduler once its 200 event stream has begun: a structured output asked
// of a server without a grammar backend is aborted with status 400, sent as
// the stream's first event, an error object whose type is the status's
// name, "BAD_REQUEST", and whose code is 400 (grammar_manager.py,
// process_req_with_grammar; schedule_batch.py, set_finish_with_abort;
// serving_chat.py, _generate_chat_stream). The caller gets the message with
// that status; a Router goes on to its next route and its breaker, the
// server being well, stays closed. The scheduler's own failure in the same
// shape, a request it cannot fit in memory ("INTERNAL_SERVER_ERROR", 500),
// is still counted.
func TestSGLangRequestErrorInStream(t *testing.T) {
	wantRelayedRefusal(t, "sglang-grammar-abort-400-in-stream", "sglang-oom-abort-status-error")
}
