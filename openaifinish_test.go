package tokenpace_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestWholeOpenAIFinish: a whole answer of Z.ai's GLM API that its
// model's context window cut finishes for "model_context_window_exceeded",
// and one its safety review stopped for "sensitive" (docs.z.ai,
// chat-completion): a caller that checks for "length" or
// "content_filter" took neither for the end it is (an agent loop sent the
// request again without end: anomalyco/opencode#18813); so does
// Mistral's "model_length", its model's context cut (a live answer of
// voxtral-small-latest: 32,424 prompt and 344 completion tokens of
// 32,768); so do CLIProxyAPI's whole Gemini answers, "max_tokens" for
// Gemini's MAX_TOKENS and "safety" for its filter, Gemini's reasons in
// lower case (router-for-me/CLIProxyAPI
// internal/translator/gemini/openai/chat-completions/gemini_openai_response.go,
// ConvertGeminiResponseToOpenAINonStream), and Portkey's gateway without
// strict OpenAI compliance, which passes Anthropic's "end_turn" and
// "tool_use" and Gemini's "MAX_TOKENS" and "SAFETY" on as they are
// (Portkey-AI/gateway src/providers/utils.ts, transformFinishReason), and Cohere's
// "COMPLETE" and "TOOL_CALL" (src/providers/cohere/chatComplete.ts); so do
// Together's and SiliconFlow's "eos", the model's end-of-sequence token
// (testdata/conformance/siliconflow-finish-eos.jsonl,
// together-chat-eos-warnings.jsonl). The answer now
// says OpenAI's name, as a stream's Accumulated() does; Timing keeps the
// server's word.
func TestWholeOpenAIFinish(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		answer := func(finish string) string {
			call := "" // a tool call's finish comes with its call
			if finish == "tool_use" || finish == "TOOL_CALL" {
				call = `,"tool_calls":[{"id":"toolu_01","type":"function","function":{"name":"read_log","arguments":"{}"}}]`
			}
			return `{"id":"202603130512440a1b2c3d4e5f6a7b","request_id":"202603130512440a1b2c3d4e5f6a7b","created":1773349964,"model":"glm-4.7-flash","choices":[{"index":0,"finish_reason":"` +
				finish + `","message":{"role":"assistant","content":"The log shows"` + call + `}}],"usage":{"prompt_tokens":202745,"completion_tokens":3,"total_tokens":202748}}`
		}
		handlers := map[string]http.Handler{}
		for _, finish := range []string{"model_context_window_exceeded", "model_length", "sensitive", "max_tokens", "safety", "end_turn", "tool_use", "MAX_TOKENS", "SAFETY", "COMPLETE", "TOOL_CALL", "eos", "stop"} {
			handlers[finish] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json; charset=UTF-8")
				_, _ = w.Write([]byte(answer(finish)))
			})
		}
		url, hc := serve(t, byModel(handlers))
		c := tokenpace.NewClient(openaiClient(url, hc))
		for sent, want := range map[string]string{
			"model_context_window_exceeded": "length",
			"model_length":                  "length",
			"sensitive":                     "content_filter",
			"max_tokens":                    "length",
			"safety":                        "content_filter",
			"end_turn":                      "stop",
			"tool_use":                      "tool_calls",
			"MAX_TOKENS":                    "length",
			"SAFETY":                        "content_filter",
			"COMPLETE":                      "stop",
			"TOOL_CALL":                     "tool_calls",
			"eos":                           "stop",
			"stop":                          "stop",
		} {
			var tm *tokenpace.Timing
			res, err := c.New(context.Background(), chat(sent, 64), tokenpace.WithTimingInto(&tm))
			if err != nil || len(res.Choices) != 1 {
				t.Fatalf("%s: %v, %v", sent, res, err)
			}
			if got := string(res.Choices[0].FinishReason); got != want || tm.FinishReason != sent {
				t.Errorf("%s: finish %q, Timing's %q; want %q, and the server's %q", sent, got, tm.FinishReason, want, sent)
			}
		}
	})
}
