package codec

import (
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestOpenLLMCompletionStreamAtDone: OpenLLM 0.3's completion chunks
// finish "stop" at [DONE] once they had output; a stream with a finish
// reason, without output, or with a chunk in another shape (members in
// another order, logprobs of nulls as Modular MAX sends, a usage, another
// id) does not.
func TestOpenLLMCompletionStreamAtDone(t *testing.T) {
	const logprobs = `"logprobs":{"text_offset":[],"token_logprobs":[],"tokens":[],"top_logprobs":[]}`
	const tail = `"model":"llama","object":"text_completion","id":"cmpl-3f9c1e7a5b2d48c6a0e4f8b1d7c2a965","created":84213}`
	chunk := func(text string) string {
		return `{"choices":[{"text":"` + text + `","index":0,` + logprobs + `,"finish_reason":null}],` + tail
	}
	for _, tt := range []struct {
		name   string
		chunks []string
		want   string // the finish AtDone gives, "" for none
	}{
		{"words", []string{chunk("Latency "), chunk("budgets ")}, "stop"},
		{"no output", []string{chunk("")}, ""},
		{"finished", []string{chunk("Hi "), strings.Replace(chunk(""), "null}]", `"length"}]`, 1)}, ""},
		{"members in another order", []string{`{"id":"cmpl-3f9c1e7a5b2d48c6a0e4f8b1d7c2a965","choices":[{"text":"Hi","index":0,` + logprobs + `,"finish_reason":null}],"model":"llama","object":"text_completion","created":1}`}, ""},
		{"logprobs of nulls", []string{strings.Replace(chunk("Hi"), `"text_offset":[]`, `"text_offset":null`, 1)}, ""},
		{"a usage", []string{strings.Replace(chunk("Hi"), `"created":84213}`, `"created":84213,"usage":null}`, 1)}, ""},
		{"another id", []string{strings.Replace(chunk("Hi"), "cmpl-3f9c", "cmpl-xf9c", 1)}, ""},
		{"then another shape", []string{chunk("Hi "), `{"id":"cmpl-1","object":"text_completion","created":1,"model":"llama","choices":[{"text":"there","index":0,"logprobs":null,"finish_reason":null}]}`}, ""},
	} {
		s := DecoderFor(Completion(openai.CompletionNewParams{Model: "llama"}, true))
		for _, c := range tt.chunks {
			if _, err := s.Decode([]byte(c)); err != nil {
				t.Fatalf("%s: Decode(%s) = %v", tt.name, c, err)
			}
		}
		got := ""
		if ev, ok := s.(DoneFinisher).AtDone(); ok {
			got = ev.Chunk.Choices[0].FinishReason
		}
		if got != tt.want {
			t.Errorf("%s: AtDone() finish = %q, want %q", tt.name, got, tt.want)
		}
	}
}
