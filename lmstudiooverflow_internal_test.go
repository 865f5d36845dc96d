package tokenpace

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestLMStudioOverflowStatus: only LM Studio's whole sentence for a
// prompt over the loaded context, two counts of tokens in it and no type
// or code beside it, is a request's error (400); the same words under a
// type or a code, other words, or counts that are not numbers are not.
func TestLMStudioOverflowStatus(t *testing.T) {
	const words = "Input does not fit in context length. The input has 31430 tokens, but the context length only supports 30000 tokens."
	for _, tt := range []struct {
		e    *openai.Error
		want int
	}{
		{&openai.Error{Message: words}, 400},
		{&openai.Error{Message: "Input does not fit in context length. The input has 5 tokens, but the context length only supports 4 tokens."}, 400},
		{&openai.Error{Message: words, Type: "server_error"}, 0},
		{&openai.Error{Message: words, Code: "internal_error"}, 0},
		{&openai.Error{Message: "Input does not fit in context length. The input has many tokens, but the context length only supports 30000 tokens."}, 0},
		{&openai.Error{Message: "Input does not fit in context length. The input has 31430 tokens, but the context length only supports -1 tokens."}, 0},
		{&openai.Error{Message: words + " Retry later."}, 0},
		{&openai.Error{Message: "Input does not fit in context length."}, 0},
		{&openai.Error{Message: "Model crashed"}, 0},
		{nil, 0},
	} {
		if got := lmStudioOverflowStatus(tt.e); got != tt.want {
			var m string
			if tt.e != nil {
				m = tt.e.Message
			}
			t.Errorf("lmStudioOverflowStatus(%q) = %d, want %d", m, got, tt.want)
		}
	}
}
