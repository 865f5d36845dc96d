package codec

import (
	"testing"

	"github.com/openai/openai-go/v3/responses"
)

// TestResponseChatShapedUsage checks the counts read from a final event's
// usage: the chat API's names when the Responses API's are absent, the
// Responses API's wherever they are present, and none from a usage of
// zeros.
func TestResponseChatShapedUsage(t *testing.T) {
	for _, tc := range []struct {
		name, usage string
		has         bool
		want        End
	}{
		{"the Responses API's", `{"input_tokens":23,"input_tokens_details":{"cached_tokens":8},"output_tokens":7,"output_tokens_details":{"reasoning_tokens":2},"total_tokens":30}`,
			true, End{Input: 23, CachedInput: 8, Output: 7, Reasoning: 2}},
		{"the chat API's", `{"prompt_tokens":23,"completion_tokens":7,"total_tokens":30}`, true, End{Input: 23, Output: 7}},
		{"the chat API's without a total", `{"prompt_tokens":23,"completion_tokens":7}`, true, End{Input: 23, Output: 7}},
		{"the chat API's with their details", `{"prompt_tokens":23,"prompt_tokens_details":{"cached_tokens":16},"completion_tokens":7,"completion_tokens_details":{"reasoning_tokens":3},"total_tokens":30}`,
			true, End{Input: 23, CachedInput: 16, Output: 7, Reasoning: 3}},
		{"both, the Responses API's taken", `{"input_tokens":23,"output_tokens":7,"prompt_tokens":99,"completion_tokens":99,"total_tokens":30}`, true, End{Input: 23, Output: 7}},
		{"cache reads under Anthropic's name, within the input (Perplexity's Agent API)", `{"input_tokens":1000,"input_tokens_details":{"cache_creation_input_tokens":150,"cache_read_input_tokens":800},"output_tokens":50,"total_tokens":1050}`,
			true, End{Input: 1000, CachedInput: 800, Output: 50}},
		{"cache reads under Anthropic's name, left out of the input (a relay of Anthropic's counts)", `{"input_tokens":200,"input_tokens_details":{"cache_creation_input_tokens":150,"cache_read_input_tokens":800},"output_tokens":50,"total_tokens":250}`,
			true, End{Input: 1150, CachedInput: 800, Output: 50}},
		{"cached tokens more than the input, the written ones beside the counts", `{"input_tokens":200,"input_tokens_details":{"cached_tokens":800},"cache_creation_input_tokens":100,"output_tokens":50,"total_tokens":250}`,
			true, End{Input: 1100, CachedInput: 800, Output: 50}},
		{"the chat API's, all zero", `{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}`, false, End{}},
	} {
		var ev responses.ResponseStreamEventUnion
		data := `{"type":"response.completed","response":{"id":"r","object":"response","status":"completed","output":[],"usage":` + tc.usage + `}}`
		if err := unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		e := responseEnd(&ev)
		got := End{Input: e.Input, CachedInput: e.CachedInput, Output: e.Output, Reasoning: e.Reasoning}
		if e.HasUsage != tc.has || got != tc.want {
			t.Errorf("%s: responseEnd = usage %v %+v, want %v %+v", tc.name, e.HasUsage, got, tc.has, tc.want)
		}
	}
}
