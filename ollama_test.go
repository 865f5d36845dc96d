package tokenpace_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// Ollama's answers that stop without saying so, recorded from a live
// Ollama of August 2026 (commit fb30760, its llama-server runner) or, for
// whole answers, copied from it. Ollama stops an answer itself when its
// runner's stream ends early, or on a token repeated more than 30 times
// (llm/llama_server.go), and logs it at debug level only: a stream then
// ends after its last delta, with no finish reason and no [DONE], or
// before its first byte with status 200 and application/x-ndjson; a whole
// answer comes with the text so far, finish_reason null and usage all
// zero. Bare openai-go returns each as a finished answer.

// TestReplayOllamaCutStream checks that a stream Ollama ended after three
// deltas, without a finish reason, is KindTruncated with its text kept,
// where bare openai-go ends it with a nil error.
func TestReplayOllamaCutStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := loadRecording(t, "ollama-2026-chat-stream-cut.jsonl")
		var want strings.Builder
		eachRecordedEvent(t, rec, func(c openai.ChatCompletionChunk, _ recordedRead) {
			if len(c.Choices) > 0 {
				want.WriteString(c.Choices[0].Delta.Content)
			}
		})
		url, hc := serve(t, replay(rec))
		oc := openaiClient(url, hc)

		bare := oc.Chat.Completions.NewStreaming(context.Background(), chat("m", 32))
		for bare.Next() {
		}
		if err := bare.Err(); err != nil {
			t.Fatalf("bare openai-go: Err() = %v, want nil (the gap this test documents)", err)
		}

		s := tokenpace.NewClient(oc).NewStreaming(context.Background(), chat("m", 32))
		drain(t, s, 0)
		checkKind(t, s.Err(), tokenpace.KindTruncated)
		if s.Text() != want.String() || want.Len() == 0 {
			t.Errorf("Text() = %q, want the deltas that came, %q", s.Text(), want.String())
		}
	})
}

// TestReplayOllamaEmptyStream checks that Ollama's 200 with
// application/x-ndjson and no byte, its answer to one of several
// concurrent fill-in-the-middle requests, is KindTruncated ("empty
// body"), and that a Router falls back from it.
func TestReplayOllamaEmptyStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		empty := replay(loadRecording(t, "ollama-2026-completions-stream-empty.jsonl"))
		full := replay(loadRecording(t, "ollama-2026-completions-suffix-stream.jsonl"))
		url, hc := serve(t, byModel(map[string]http.Handler{"first": empty, "second": full}))
		c := tokenpace.NewClient(openaiClient(url, hc))

		s := c.NewCompletionStreaming(context.Background(), fim("first", "func main() {", "}"))
		for s.Next() {
		}
		if se := checkKind(t, s.Err(), tokenpace.KindTruncated); se != nil && se.Detail != "empty body" {
			t.Errorf("Detail = %q, want empty body", se.Detail)
		}

		r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, route("first"), route("second"))
		if err != nil {
			t.Fatal(err)
		}
		s = r.NewCompletionStreaming(context.Background(), fim("first", "func main() {", "}"))
		for s.Next() {
		}
		if err := s.Err(); err != nil || s.Text() == "" || s.Timing().Target != "second" {
			t.Errorf("Router: Err() = %v, text %q from %q; want the second route's answer", s.Err(), s.Text(), s.Timing().Target)
		}
	})
}

// TestOllamaUnfinishedWholeAnswer checks that a whole answer Ollama
// stopped (finish_reason null, usage all zero) is KindTruncated, with its
// text beside the error, and that a Router takes the next route's.
func TestOllamaUnfinishedWholeAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stopped := jsonAnswer(`{"id":"chatcmpl-434","object":"chat.completion","created":1796490689,"model":"first","system_fingerprint":"fp_ollama","choices":[{"index":0,"message":{"role":"assistant","content":"@@@@@@@@"},"finish_reason":null}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`)
		stoppedCompletion := jsonAnswer(`{"id":"cmpl-434","object":"text_completion","created":1796490689,"model":"fim","system_fingerprint":"fp_ollama","choices":[{"text":"@@@@@@@@","index":0,"finish_reason":null}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`)
		url, hc := serve(t, byModel(map[string]http.Handler{"first": stopped, "fim": stoppedCompletion, "second": wholeAnswer("Hi.")}))
		c := tokenpace.NewClient(openaiClient(url, hc))

		res, err := c.New(context.Background(), chat("first", 16))
		if se := checkKind(t, err, tokenpace.KindTruncated); se != nil && se.Detail != "no finish_reason" {
			t.Errorf("New: Detail = %q, want no finish_reason", se.Detail)
		}
		if res == nil || res.Choices[0].Message.Content != "@@@@@@@@" {
			t.Errorf("New() = %v, want the text kept beside the error", res)
		}
		cres, err := c.NewCompletion(context.Background(), fim("fim", "func main() {", "}"))
		checkKind(t, err, tokenpace.KindTruncated)
		if cres == nil || cres.Choices[0].Text != "@@@@@@@@" {
			t.Errorf("NewCompletion() = %v, want the text kept beside the error", cres)
		}

		r, rerr := tokenpace.NewRouter(c, tokenpace.Policy{}, route("first"), route("second"))
		if rerr != nil {
			t.Fatal(rerr)
		}
		res, err = r.New(context.Background(), chat("first", 16))
		if err != nil || res.Choices[0].Message.Content != "Hi." {
			t.Errorf("Router.New() = %v, %v; want the second route's answer", res, err)
		}
	})
}
