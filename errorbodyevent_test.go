package tokenpace_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestErrorBodyFramedAsEvent replays an error body framed as an event of
// a stream: Alibaba Cloud's DashScope (compatible mode) refuses a
// streamed request whose input its content screen rejects with status
// 400 and the error object as one `data:` line
// (`data: {"error":{"code":"data_inspection_failed",…},"id":…}`, as
// QuantumNous/new-api's RelayErrorHandler tests hold it, and as OpenRouter
// relays Alibaba's raw body in its error metadata). Its label is not
// recorded, so the body is served as an event stream and as JSON. openai-go
// strips the `data:` prefix of an error body, so it keeps the message; the
// caller gets the status, the message and the code, streamed or whole,
// without a second request.
func TestErrorBodyFramedAsEvent(t *testing.T) {
	const msg, code = "Input text data may contain inappropriate content.", "data_inspection_failed"
	for _, label := range []string{"text/event-stream;charset=UTF-8", "application/json"} {
		t.Run(label, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := loadRecording(t, "dashscope-2026-chat-inspection-refused.jsonl")
				rec.Headers = map[string]string{"content-type": label}
				url, hc := serve(t, replay(rec))
				check := func(who string, err error, wrapped bool) {
					t.Helper()
					var ae *openai.Error
					var se *tokenpace.StreamError
					if wrapped && (!errors.As(err, &se) || se.Kind != tokenpace.KindRequest) ||
						!errors.As(err, &ae) || ae.StatusCode != 400 || ae.Message != msg || ae.Code != code {
						t.Errorf("%s: Err() = %v, want an *openai.Error of status 400, the message %q and the code %q (wrapped in a KindRequest *StreamError: %v)",
							who, err, msg, code, wrapped)
					}
				}
				oc := openaiClient(url, hc)
				bare := oc.Chat.Completions.NewStreaming(context.Background(), chat("m", 4))
				for bare.Next() {
				}
				check("openai-go", bare.Err(), false)
				c := tokenpace.NewClient(oc)
				s := c.NewStreaming(context.Background(), chat("m", 4))
				if text := readAll(t, s); text != "" {
					t.Errorf("streamed: text %q, want none", text)
				}
				check("streamed", s.Err(), true)
				p := chat("m", 4)
				p.StreamOptions = openai.ChatCompletionStreamOptionsParam{}
				_, err := c.New(context.Background(), p)
				check("whole", err, true)
			})
		})
	}
}
