package tokenpace_test

import "testing"

// TestMAXRequestErrorInStream replays Modular MAX's OpenAI router
// refusing a prompt over the model's context once its 200 event stream
// has begun: the prompt is tokenized inside the stream's generator, and
// the InputError is sent as one event of its ErrorResponse, its status
// only as the string code "400" and its type ""
// (max/python/max/serve/router/openai_routes.py,
// OpenAIChatResponseGenerator.stream). The caller gets the message with
// that status; a Router goes on to its next route and its breaker, the
// server being well, stays closed. The server's own failure in the same
// shape (code "500") is still counted.
func TestMAXRequestErrorInStream(t *testing.T) {
	wantRelayedRefusal(t, "maxserve-chat-prompt-too-long-in-stream", "maxserve-chat-failure-midstream", 400)
}
