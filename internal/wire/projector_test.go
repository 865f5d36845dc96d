package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestProjectorMissing: llama.cpp's refusal of an image or audio for a
// model served without its projector, 500 "server_error", is told by its
// words whatever server sent it (Ollama passes it on with no Server
// header) and whatever type a gateway that wraps it gives its own error
// (an api_error, LiteLLM's null); another 500, another status, or the
// words cut short, is not.
func TestProjectorMissing(t *testing.T) {
	const image = `{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}`
	for _, tt := range []struct {
		status int
		body   string
		want   bool
	}{
		{500, image, true},
		{500, `{"error":{"code":500,"message":"audio input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}`, true},
		{500, `{"error":{"code":500,"message":"image input is not supported","type":"server_error"}}`, false},
		{500, `{"error":{"code":500,"message":"llama_decode failed","type":"server_error"}}`, false},
		{500, `{"error":{"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"api_error"}}`, true},
		{500, `{"error":{"message":"litellm.InternalServerError: InternalServerError: OpenAIException - image input is not supported - hint: if this is unexpected, you may need to provide the mmproj. Received Model Group=gemma3\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"500"}}`, true},
		{503, image, false},
		{400, image, false},
		{500, `image input is not supported - hint: if this is unexpected, you may need to provide the mmproj`, false},
	} {
		res := &http.Response{StatusCode: tt.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tt.body))}
		if got := ProjectorMissing(res); got != tt.want {
			t.Errorf("ProjectorMissing(%d %s) = %v, want %v", tt.status, tt.body, got, tt.want)
		}
		if b, _ := io.ReadAll(res.Body); string(b) != tt.body {
			t.Errorf("body after ProjectorMissing = %q, want it kept", b)
		}
	}
}
