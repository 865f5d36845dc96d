package tokenpace

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestLMStudioEngineStatus: LM Studio's words for its engine's answer
// give the engine's status when it is a request's error, 400 to 499,
// whether the engine's error follows as its JSON body or as its words;
// the engine's 500 (a model that failed), the same words under a type or
// a code, and other words give none.
func TestLMStudioEngineStatus(t *testing.T) {
	const schema = `Engine protocol predict request returned 400: {"error":{"code":400,"message":"Unable to generate parser for this template. Automatic parser generation failed: JSON schema conversion failed:\nPattern must start with '^' and end with '$'","type":"invalid_request_error"}}`
	for _, tt := range []struct {
		e    *openai.Error
		want int
	}{
		{&openai.Error{Message: schema}, 400},
		{&openai.Error{Message: "Engine protocol predict request returned 400: JSON schema conversion failed:\nUnrecognized schema: \"object\""}, 400},
		{&openai.Error{Message: `Engine protocol predict request returned 500: {"error":{"code":500,"message":"Failed to decode the batch","type":"server_error"}}`}, 0},
		{&openai.Error{Message: "Engine protocol predict request returned 503: Loading model"}, 0},
		{&openai.Error{Message: schema, Type: "server_error"}, 0},
		{&openai.Error{Message: schema, Code: "internal_error"}, 0},
		{&openai.Error{Message: "Engine protocol predict request returned 4xx: refused"}, 0},
		{&openai.Error{Message: "The engine returned 400: refused"}, 0},
		{nil, 0},
	} {
		if got := lmStudioEngineStatus(tt.e); got != tt.want {
			var m string
			if tt.e != nil {
				m = tt.e.Message
			}
			t.Errorf("lmStudioEngineStatus(%q) = %d, want %d", m, got, tt.want)
		}
	}
}
