package codec

import (
	"strconv"
	"testing"

	"github.com/openai/openai-go/v3/responses"
)

// TestItemsDoneCallArgs: a stream that ends without response.completed,
// its every item done "completed", is whole only when no function call's
// arguments stop inside a JSON value: vLLM closes a call with the
// arguments streamed so far when one engine step holds their end and the
// text after it (vllm-project/vllm#55284). Arguments a model wrote
// otherwise than as JSON, whole, leave it whole: single quotes
// (QwenLM/qwen-code#288), an extra closing brace
// (yigit353/langchain-qwq#30), unquoted keys (tinyhumansai/tinyagents#68).
func TestItemsDoneCallArgs(t *testing.T) {
	const msg = `{"type":"response.output_item.done","output_index":1,"item":{"type":"message","id":"m","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Reading it now.","annotations":[]}]}}`
	for _, tc := range []struct {
		name, args string
		want       bool
	}{
		{"whole arguments", `{"path": "src/main.go"}`, true},
		{"no arguments", ``, true},
		{"arguments cut inside a string", `{"path": "src/main`, false},
		{"arguments cut after a key", `{"path": `, false},
		{"arguments cut inside a literal", `{"path": "a", "all": tru`, false},
		{"arguments cut after a comma", `{"path": "a",`, false},
		{"empty object", `{}`, true},
		{"a trailing newline", "{\"path\": \"src/main.go\"}\n", true},
		// A model's arguments that are no JSON, but whole: the answer
		// is what the model wrote, as with response.completed.
		{"single quotes", `{'path': 'src/main.go'}`, true},
		{"an extra closing brace", `{"path": "src/main.go"}}`, true},
		{"unquoted keys", `{path: "src/main.go"}`, true},
		{"free text", `src/main.go`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			call := `{"type":"function_call","id":"fc","call_id":"call_1","name":"read_file","arguments":` + strconv.Quote(tc.args) + `,"status":"completed"}`
			dec := DecoderFor(Response(responses.ResponseNewParams{}))
			for _, e := range []string{
				`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc","call_id":"call_1","name":"read_file","arguments":"","status":"in_progress"}}`,
				`{"type":"response.output_item.done","output_index":0,"item":` + call + `}`,
				`{"type":"response.output_item.added","output_index":1,"item":{"type":"message","id":"m","role":"assistant","status":"in_progress","content":[]}}`,
				msg,
			} {
				if _, err := dec.Decode([]byte(e)); err != nil {
					t.Fatal(err)
				}
			}
			if got := dec.(*ResponseStream).ItemsDone(); got != tc.want {
				t.Errorf("ItemsDone() after a call done with arguments %q = %v, want %v", tc.args, got, tc.want)
			}
		})
	}
}
