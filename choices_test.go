package tokenpace_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
)

// TestFewerChoicesThanAsked: Laisky's fork of one-api asks its upstream's
// Responses API for one answer and makes a chat answer of it, so that a
// request with n = 2 gets one choice (recorded live, 2026): whole, with
// nothing to say so, and streamed, without [DONE]. A relay that writes
// [DONE] all the same (one-api does, after any stream) ended such a
// stream cleanly. Each came with a KindTruncated error, which a breaker
// counted against a server that is well; each now comes with a
// KindRequest one, "n_ignored", that no breaker counts, the choice that
// came kept. A stream in which the second choice began and never
// finished was cut: KindTruncated, as before.
func TestFewerChoicesThanAsked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		whole := loadRecording(t, "laiskyoneapi-2026-chat-n2-nostream.jsonl")
		stream := loadRecording(t, "laiskyoneapi-2026-chat-n2-stream.jsonl")
		last := stream.Reads[len(stream.Reads)-1].TMS
		done := stream // the same stream, [DONE] after it
		done.Reads = append(append([]recordedRead(nil), stream.Reads...), recordedRead{TMS: last, Data: "data: [DONE]\n\n"})
		cut := stream // the second choice begun, never finished, then [DONE]
		cut.Reads = append(append([]recordedRead(nil), stream.Reads[:1]...),
			recordedRead{TMS: stream.Reads[0].TMS, Data: `data: {"id":"","object":"chat.completion.chunk","created":0,"model":"","choices":[{"index":1,"delta":{"role":"assistant","content":"b"}}]}` + "\n\n"})
		cut.Reads = append(append(cut.Reads, stream.Reads[1:]...), recordedRead{TMS: last, Data: "data: [DONE]\n\n"})
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.Header.Get("X-Case") {
			case "done":
				replay(done)(w, r)
			case "cut":
				replay(cut)(w, r)
			case "stream":
				replay(stream)(w, r)
			default:
				replay(whole)(w, r)
			}
		}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		req := chat("tiny", 6)
		req.N = openai.Int(2)

		res, err := c.New(context.Background(), req)
		var se *tokenpace.StreamError
		if !errors.As(err, &se) || se.Kind != tokenpace.KindRequest || se.Detail != "n_ignored" || res == nil || len(res.Choices) != 1 || res.Choices[0].Message.Content == "" {
			t.Errorf("whole: err %v, completion %v; want a KindRequest \"n_ignored\" error with the one choice kept", err, res)
		}
		for _, tc := range []struct {
			name   string
			kind   tokenpace.ErrorKind
			detail string
		}{
			{"stream", tokenpace.KindRequest, "n_ignored"},
			{"done", tokenpace.KindRequest, "n_ignored"},
			{"cut", tokenpace.KindTruncated, "1 of 2 choices finished"},
		} {
			s := c.NewStreaming(context.Background(), req, option.WithHeader("X-Case", tc.name))
			got := readChat(s)
			if !errors.As(got.err, &se) || se.Kind != tc.kind || se.Detail != tc.detail || got.text == "" {
				t.Errorf("%s: text %q, err %v; want the choice's text and a %v %q error", tc.name, got.text, got.err, tc.kind, tc.detail)
			}
		}

		r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, route("tiny"))
		if err != nil {
			t.Fatal(err)
		}
		for range 6 {
			s := r.NewStreaming(context.Background(), req, option.WithHeader("X-Case", "done"))
			if got := readChat(s); !errors.As(got.err, &se) || se.Detail != "n_ignored" || got.text == "" {
				t.Fatalf("Router: text %q, err %v; want the choice's text and n_ignored", got.text, got.err)
			}
		}
		if st, ok := r.BreakerState("tiny"); !ok || st != gobreaker.StateClosed {
			t.Errorf("breaker after answers that ignored n: %v; want closed: they say nothing of the server's health", st)
		}

		req.N = openai.Int(1) // one choice asked, one answered
		if _, err := c.New(context.Background(), req); err != nil {
			t.Errorf("n = 1: err %v, want nil", err)
		}
	})
}

// TestLocalAIChoicesGlued: LocalAI streams the choices of a request with
// n = 2 one after the other, all as choice 0 (recorded live, 2026: 12
// tokens of two answers of 6, one finish reason). The caller got one
// choice whose text ran both answers together. It now gets a KindRequest
// refusal before any text, and a Router falls back to its next route,
// whose breaker does not count the refusal.
func TestLocalAIChoicesGlued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		glued := loadRecording(t, "localai-2026-chat-n2-stream.jsonl")
		url, hc := serve(t, byModel(map[string]http.Handler{
			"tiny":   replay(glued),
			"second": sseBody(chunk("s", "a", "stop", "") + `data: {"id":"s","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":1,"delta":{"content":"b"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"),
		}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		req := chat("tiny", 6)
		req.N = openai.Int(2)
		s := c.NewStreaming(context.Background(), req)
		got := readChat(s)
		var se *tokenpace.StreamError
		if !errors.As(got.err, &se) || se.Kind != tokenpace.KindRequest || se.Detail != "choices_glued" || !strings.Contains(got.err.Error(), "LocalAI") || got.text != "" {
			t.Errorf("Client: text %q, err %v; want no text and a KindRequest refusal naming LocalAI", got.text, got.err)
		}

		r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, route("tiny"), route("second"))
		if err != nil {
			t.Fatal(err)
		}
		for range 6 {
			s = r.NewStreaming(context.Background(), req)
			n := 0
			for s.Next() {
				n += len(s.Current().Choices)
			}
			if s.Err() != nil || n != 2 {
				t.Fatalf("Router: %d choice deltas, err %v; want the second route's two choices", n, s.Err())
			}
		}
		if st, ok := r.BreakerState("tiny"); !ok || st != gobreaker.StateClosed {
			t.Errorf("breaker of the LocalAI route: %v; want closed: the refusal says nothing of its health", st)
		}
	})
}

// TestLMDeployPromptsGlued: LMDeploy's api_server streams a completions
// request of several prompts prompt after prompt, every chunk as choice 0,
// each prompt with a finish chunk of its own, then one usage chunk of
// them all (lmdeploy/serve/openai/endpoints/completions.py,
// completion_stream_generator: index=0 for every generator; a whole
// answer numbers its choices). Bare openai-go, and the caller, got one
// choice whose text ran both completions together, and the caller an
// error that said the server ignored n, which the request never set. It
// now gets a KindRequest refusal naming LMDeploy at the first event,
// before any text, and a Router falls back to its next route, its
// breaker closed. A stream of one prompt is the server's answer.
func TestLMDeployPromptsGlued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		glued := loadRecording(t, "lmdeploy-2026-completions-prompts2-stream.jsonl")
		one := loadRecording(t, "lmdeploy-2026-completions-suffix-stream.jsonl")
		url, hc := serve(t, byModel(map[string]http.Handler{"tiny": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if strings.Contains(string(body), `"prompt":[`) {
				replay(glued)(w, r)
				return
			}
			replay(one)(w, r)
		}), "second": sseBody(`data: {"id":"s","object":"text_completion","model":"second","choices":[{"index":0,"text":"a","finish_reason":"stop"}]}` + "\n\n" +
			`data: {"id":"s","object":"text_completion","model":"second","choices":[{"index":1,"text":"b","finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n")}))
		p := openai.CompletionNewParams{Model: "tiny", MaxTokens: openai.Int(4),
			Prompt: openai.CompletionNewParamsPromptUnion{OfArrayOfStrings: []string{"def f(x):\n", "class A:\n"}}}

		oc := openaiClient(url, hc)
		bare := oc.Completions.NewStreaming(context.Background(), p)
		var bareText strings.Builder
		for bare.Next() {
			for _, ch := range bare.Current().Choices {
				if ch.Index == 0 {
					bareText.WriteString(ch.Text)
				}
			}
		}
		if bare.Err() != nil || bareText.String() != " return x * 2 def __init__" {
			t.Errorf("bare openai-go: choice 0 %q, err %v; the fixture's premise is both prompts' text as choice 0", bareText.String(), bare.Err())
		}

		c := tokenpace.NewClient(openaiClient(url, hc))
		got := readCompletionStream(c.NewCompletionStreaming(context.Background(), p))
		var se *tokenpace.StreamError
		if !errors.As(got.err, &se) || se.Kind != tokenpace.KindRequest || se.Detail != "choices_glued" || !strings.Contains(got.err.Error(), "LMDeploy") || got.text != "" {
			t.Errorf("Client: text %q, err %v; want no text and a KindRequest refusal naming LMDeploy", got.text, got.err)
		}

		r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, route("tiny"), route("second"))
		if err != nil {
			t.Fatal(err)
		}
		for range 6 {
			if got := readCompletionStream(r.NewCompletionStreaming(context.Background(), p)); got.err != nil || got.text != "a" {
				t.Fatalf("Router: choice 0 %q, err %v; want the second route's answer", got.text, got.err)
			}
		}
		if st, ok := r.BreakerState("tiny"); !ok || st != gobreaker.StateClosed {
			t.Errorf("breaker of the LMDeploy route: %v; want closed: the refusal says nothing of its health", st)
		}

		p.Prompt = openai.CompletionNewParamsPromptUnion{OfString: openai.String("def add(a, b):\n")}
		if got := readCompletionStream(c.NewCompletionStreaming(context.Background(), p)); got.err != nil || got.text != recordedCompletionText(t, one) {
			t.Errorf("one prompt: text %q, err %v; want LMDeploy's answer", got.text, got.err)
		}
	})
}
