package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestCompletionReasoning checks that a completions chunk whose choice
// holds reasoning beside a null text (LiteLLM's proxy, a chat model that
// reasons behind /v1/completions) is output, and reasoning, as the same
// delta of a chat chunk is; a null or empty reasoning is neither.
func TestCompletionReasoning(t *testing.T) {
	req := Completion(openai.CompletionNewParams{}, true)
	const head = `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":null,`
	tests := []struct {
		name, choice     string
		outputs          int
		reasoning, shows bool
	}{
		{"reasoning_content, text null", `"text":null,"reasoning_content":"Latency"}]}`, 1, true, true},
		{"reasoning, text absent", `"reasoning":"Latency"}]}`, 1, true, true},
		{"text, reasoning_content null", `"text":"Budgets","reasoning_content":null}]}`, 1, true, false},
		{"text null, reasoning_content empty", `"text":null,"reasoning_content":""}]}`, 0, true, false},
		{"text alone", `"text":"Budgets"}]}`, 1, false, false},
	}
	for _, tt := range tests {
		ev, err := req.Decode([]byte(head + tt.choice))
		if err != nil {
			t.Fatalf("%s: Decode = %v, want nil", tt.name, err)
		}
		if ev.Outputs != tt.outputs {
			t.Errorf("%s: Outputs = %d, want %d", tt.name, ev.Outputs, tt.outputs)
		}
		if ev.Reasoning != tt.reasoning {
			t.Errorf("%s: Reasoning = %v, want %v", tt.name, ev.Reasoning, tt.reasoning)
		}
		if got := ShowsReasoning(&ev); got != tt.shows {
			t.Errorf("%s: ShowsReasoning = %v, want %v", tt.name, got, tt.shows)
		}
	}
}
