package codec

import "testing"

func TestPromptCount(t *testing.T) {
	var p PromptCount
	steps := []struct{ in, want Usage }{
		{Usage{Prompt: 412, Cached: 12, Output: 1}, Usage{Prompt: 412, Cached: 12, Output: 1}},
		{Usage{Output: 58}, Usage{Prompt: 412, Cached: 12, Output: 58}}, // Helicone's finish chunk
		{Usage{Prompt: 500, Output: 60}, Usage{Prompt: 500, Output: 60}},
	}
	for i, s := range steps {
		if got := p.Usage(s.in); got != s.want {
			t.Errorf("step %d: Usage(%+v) = %+v, want %+v", i, s.in, got, s.want)
		}
	}
	var fresh PromptCount
	if got := fresh.Usage(Usage{Output: 3}); got != (Usage{Output: 3}) {
		t.Errorf("Usage of a stream without a prompt count = %+v, want the output alone", got)
	}
}
