package tokenpace_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestDatabricksExternalModelError replays the error body of a Databricks
// serving endpoint whose model answered an error: "error" is a string of
// Databricks' own, the same whatever went wrong ("Received error from
// databricks-model-serving"), and the model's own error, its message and
// code, is in "external_model_message". The bytes are those of
// databricks-demos/dbdemos#97 (status 400); block/goose's Databricks
// provider (crates/goose/src/providers/databricks.rs) reads the same
// member of its chat requests' 400s, whose top-level error it calls
// "generic". The caller must get the model's message and its code as the
// error's type, streamed or whole; before, the *openai.Error held only
// Databricks' sentence, and openai-go alone fails to decode the body,
// losing the status too.
func TestDatabricksExternalModelError(t *testing.T) {
	const msg = "INVALID_PARAMETER_VALUE: Missing required embeddings parameter: 'input'"
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, replay(loadRecording(t, "databricks-external-model-error.jsonl")))
		c := tokenpace.NewClient(openaiClient(url, hc))
		// openai-go alone: a decoding error, neither status nor message.
		oc := openaiClient(url, hc)
		bare := oc.Chat.Completions.NewStreaming(context.Background(), chat("m", 4))
		for bare.Next() {
		}
		var ae *openai.Error
		if bare.Err() == nil || errors.As(bare.Err(), &ae) {
			t.Errorf("openai-go: Err() = %v, want an error that is no *openai.Error", bare.Err())
		}
		wantRequestError(t, c, 400, msg, "INVALID_PARAMETER_VALUE")
	})
}
