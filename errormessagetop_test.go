package tokenpace_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestErrorMessageAtTopLevel replays error bodies that say their message
// at the top level, with no "error" object, which openai-go alone does not
// decode (it reads the "error" member): its *openai.Error keeps the status
// and loses the message. TensorRT-LLM's trtllm-serve answers every request
// it refuses so (tensorrt_llm/serve/openai_server.py,
// create_error_response; openai_protocol.py, ErrorResponse: object
// "error", message, type, param, code), as Aphrodite did until 0.9
// (aphrodite/endpoints/openai/protocol.py at v0.6.6, the same
// ErrorResponse; an "error" object since its sync to vLLM in August 2025)
// and vLLM before its 0.10 releases; mistral.rs answers with the message
// alone, 422 for a request it refuses, 500 for a failure
// (mistralrs-server-core/src/handler_core.rs, JsonError, to_response). The
// caller gets the status, the server's message and its error's type in
// the *openai.Error, streamed or whole. (Their types, "BadRequestError",
// read as no error name, so the Detail stays empty.)
func TestErrorMessageAtTopLevel(t *testing.T) {
	for _, tt := range []struct {
		file, msg, their string
		status           int
	}{
		{"trtllm-2026-chat-refused.jsonl", "Invalid logit_bias key 'abc': must be a valid integer token ID", "BadRequestError", 400},
		{"aphrodite-0.6-chat-model-not-found.jsonl", "The model `gpt-4o` does not exist.", "NotFoundError", 404},
		{"mistralrs-2026-chat-model-not-found.jsonl", "model `gpt-4o` was not found", "", 422},
	} {
		t.Run(tt.file, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, replay(loadRecording(t, tt.file)))
				c := tokenpace.NewClient(openaiClient(url, hc))
				// openai-go alone: the status, no message.
				oc := openaiClient(url, hc)
				bare := oc.Chat.Completions.NewStreaming(context.Background(), chat("m", 4))
				for bare.Next() {
				}
				var ae *openai.Error
				if !errors.As(bare.Err(), &ae) || ae.StatusCode != tt.status || ae.Message != "" {
					t.Errorf("openai-go: Err() = %v, want status %d without a message", bare.Err(), tt.status)
				}
				wantRequestError(t, c, tt.status, tt.msg, tt.their)
			})
		})
	}
}

// wantRequestError asks c for a chat stream and a whole chat answer and
// checks that each fails, the stream before any text, with a KindRequest
// *StreamError wrapping an *openai.Error of status, msg and typ.
func wantRequestError(t *testing.T, c *tokenpace.Client, status int, msg, typ string) {
	t.Helper()
	check := func(who string, err error) {
		t.Helper()
		var ae *openai.Error
		var se *tokenpace.StreamError
		var got string
		if errors.As(err, &ae) {
			got = ae.Message
		}
		if !errors.As(err, &se) || se.Kind != tokenpace.KindRequest || !errors.As(err, &ae) ||
			ae.StatusCode != status || ae.Message != msg || ae.Type != typ {
			t.Errorf("%s: Err() = %v (message %q), want a KindRequest *StreamError wrapping an *openai.Error of status %d, the message %q and the type %q",
				who, err, got, status, msg, typ)
		}
	}
	s := c.NewStreaming(context.Background(), chat("m", 4))
	if text := readAll(t, s); text != "" {
		t.Errorf("streamed: text %q, want none", text)
	}
	check("streamed", s.Err())
	p := chat("m", 4)
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{}
	_, err := c.New(context.Background(), p)
	check("whole", err)
}
