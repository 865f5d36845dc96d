package tokenpace_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestLlamaCpp2024Completions: llama.cpp's server before #10974
// (December 2024) answered /v1/completions in its own format, streamed
// and whole (recorded live from its build of September 2024). openai-go
// read no choice in it: the caller got no text, and tokenpace a
// KindTruncated error, or for a whole answer "0 of 1 choices finished".
// The caller now gets the completion it says: the text, the finish
// reason "length" at the token limit, and the usage, with the stream's
// timing as its events arrived.
func TestLlamaCpp2024Completions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stream := loadRecording(t, "llamacpp-2024-completions-stream.jsonl")
		whole := loadRecording(t, "llamacpp-2024-completions-nostream.jsonl")
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Case") == "stream" {
				replay(stream)(w, r)
				return
			}
			replay(whole)(w, r)
		}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		p := openai.CompletionNewParams{Model: "tinyllama", MaxTokens: openai.Int(12),
			Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("The capital of France is")}}

		s := c.NewCompletionStreaming(context.Background(), p, option.WithHeader("X-Case", "stream"))
		text, finish := "", ""
		for s.Next() {
			for _, ch := range s.Current().Choices {
				text += ch.Text
				finish = string(ch.FinishReason)
			}
		}
		_ = s.Close()
		tm := s.Timing()
		if want := " UTCkehranu neuenŐagg parties法 Unicode psealing mail"; s.Err() != nil || text != want || finish != "length" {
			t.Errorf("stream: text %q, finish %q, err %v; want %q, \"length\", nil", text, finish, s.Err(), want)
		}
		if !tm.UsageReported || tm.PromptTokens != 6 || tm.OutputTokens != 12 {
			t.Errorf("stream: usage (%v, %d, %d), want (true, 6, 12)", tm.UsageReported, tm.PromptTokens, tm.OutputTokens)
		}
		if first, last := stream.Reads[0].TMS, stream.Reads[len(stream.Reads)-1].TMS; tm.TTFT() != ms(first) || tm.E2E() != ms(last) {
			t.Errorf("stream: TTFT %v, E2E %v; want the first and last events' arrival %v, %v", tm.TTFT(), tm.E2E(), ms(first), ms(last))
		}

		res, err := c.NewCompletion(context.Background(), p)
		if err != nil || len(res.Choices) != 1 || res.Choices[0].Text != "Enabled sortie Ez Special® measberga coach restrictionsorders znajdu Za" ||
			res.Choices[0].FinishReason != "length" || res.Usage.PromptTokens != 6 || res.Usage.CompletionTokens != 12 || res.Model != "tinyllama" {
			t.Errorf("whole: %+v, err %v; want the answer's text, \"length\", 6 and 12 tokens, the model asked", res, err)
		}
	})
}

// TestLlamaCpp2024WholeChatLength: llama.cpp's server from March to
// December 2024 said "stop" for every whole chat answer, one cut at its
// token limit too (recorded live: 12 tokens of 12). The caller's
// completion now says "length" when the answer used every token allowed.
// A whole answer of a later build, which says "length" itself and "stop"
// for an end-of-sequence token at the limit, keeps its word, as does an
// answer under the limit.
func TestLlamaCpp2024WholeChatLength(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cut := loadRecording(t, "llamacpp-2024-chat-nostream-length.jsonl")
		later := loadRecording(t, "llamacpp-110m-chat-nostream.jsonl") // February 2025: 10 tokens
		later.Reads[0].Data = strings.Replace(later.Reads[0].Data, `"finish_reason":"length"`, `"finish_reason":"stop"`, 1)
		url, hc := serve(t, byModel(map[string]http.Handler{"tinyllama": replay(cut), "later": replay(later)}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		for _, tc := range []struct {
			model string
			max   int
			want  string
		}{
			{"tinyllama", 12, "length"},
			{"tinyllama", 20, "stop"},
			{"later", 10, "stop"},
		} {
			res, err := c.New(context.Background(), chat(tc.model, tc.max))
			if err != nil || len(res.Choices) != 1 || res.Choices[0].FinishReason != tc.want {
				t.Errorf("%s, max_tokens %d: %+v, err %v; want finish %q", tc.model, tc.max, res, err, tc.want)
			}
		}
	})
}
