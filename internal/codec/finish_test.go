package codec

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestLengthFinish: an answer that used every token allowed is finished
// for "length" when its server said "stop", and when it said
// "tool_calls" (vLLM's chat stream, whatever its engine's reason) for a
// call whose arguments stop short of their end; a whole call, an answer
// under the limit and a request without one keep the server's word.
func TestLengthFinish(t *testing.T) {
	const cut, whole = `{\"path\": \"notes.md\", \"content\": \"# Lat`, `{\"path\": \"notes.md\"}`
	answer := func(finish, usage string, args ...string) string {
		calls := ""
		for i, a := range args {
			if i > 0 {
				calls += ","
			}
			calls += `{"id":"c","type":"function","function":{"name":"write_file","arguments":"` + a + `"}}`
		}
		return `{"choices":[{"index":0,"finish_reason":"` + finish + `","message":{"role":"assistant","content":"","tool_calls":[` + calls + `]}}]` + usage + `}`
	}
	usage := func(n string) string {
		return `,"usage":{"prompt_tokens":214,"completion_tokens":` + n + `,"total_tokens":230}`
	}
	for _, tc := range []struct {
		name          string
		answer        string
		limit, deltas int64
		want          string
	}{
		{"call cut at the limit", answer("tool_calls", usage("16"), cut), 16, 7, "length"},
		{"call cut, no usage, deltas at the limit", answer("tool_calls", "", cut), 16, 16, "length"},
		{"the last of two calls cut", answer("tool_calls", usage("16"), whole, cut), 16, 9, "length"},
		{"call named, no arguments yet", answer("tool_calls", usage("16"), ""), 16, 1, "length"},
		{"whole call at the limit", answer("tool_calls", usage("16"), whole), 16, 7, "tool_calls"},
		{"call cut under the limit", answer("tool_calls", usage("12"), cut), 16, 7, "tool_calls"},
		{"call cut, no usage, fewer deltas", answer("tool_calls", "", cut), 16, 7, "tool_calls"},
		{"call cut, no limit asked", answer("tool_calls", usage("16"), cut), 0, 7, "tool_calls"},
		{"text at the limit said stop", answer("stop", ""), 8, 8, "length"},
		{"text under the limit by its usage", answer("stop", usage("6")), 8, 8, "stop"},
	} {
		var c openai.ChatCompletion
		if err := json.Unmarshal([]byte(tc.answer), &c); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		lengthFinish(&c, tc.limit, tc.deltas)
		if got := c.Choices[0].FinishReason; got != tc.want {
			t.Errorf("%s: lengthFinish = %q, want %q", tc.name, got, tc.want)
		}
	}
}
