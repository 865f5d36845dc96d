package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestGpt2GigaRefusalNotCounted: gpt2giga, which serves Sber's GigaChat
// API as OpenAI's chat API, begins its 200 event stream before GigaChat
// is asked, and writes GigaChat's refusal of the request (422 for a
// prompt over the model's context) as an error event whose only trace of
// the status is the gigachat library's exception class,
// "UnprocessableEntityError", beside the code "stream_error"
// (ai-forever/gpt2giga src/gpt2giga/common/streaming.py). It counted as
// the server's failure: a breaker of one failure opened on a server that
// was well after one prompt too long. The caller now gets status 422
// with the server's message, and the breaker stays closed.
func TestGpt2GigaRefusalNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "gpt2giga-gigachat-422-error-event-done", http.StatusUnprocessableEntity, chatErr(t))
	})
}
