package codec

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestNoCallsFinish checks that a choice finished "tool_calls" with no
// call in its message (MLC LLM's answer in words to a request with tools)
// is "stop", and that a choice that made a call, or finished for another
// reason, keeps its server's word.
func TestNoCallsFinish(t *testing.T) {
	const whole = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[
		{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"Paris."}},
		{"index":1,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}},
		{"index":2,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"function_call":{"name":"get_weather","arguments":"{}"}}},
		{"index":3,"finish_reason":"length","message":{"role":"assistant","content":"Par"}}]}`
	var c openai.ChatCompletion
	if err := json.Unmarshal([]byte(whole), &c); err != nil {
		t.Fatal(err)
	}
	noCallsFinish(&c)
	for i, want := range []string{"stop", "tool_calls", "tool_calls", "length"} {
		if got := c.Choices[i].FinishReason; got != want {
			t.Errorf("choice %d: finish reason %q, want %q", i, got, want)
		}
	}
}
