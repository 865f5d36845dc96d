package wire

import (
	"io"
	"testing"
)

// TestProviderError: claude-code-router's error, the upstream's body as
// text after its own prefix and followed by a stack trace, reaches
// openai-go as the upstream's JSON body, or, where that body was text, as
// the prefix and the text alone; another relay's error stays as it was.
func TestProviderError(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"JSON body",
			`{"error":{"message":"Error from provider(deepseek,deepseek-chat: 400): {\"error\":{\"message\":\"Invalid max_tokens value\",\"type\":\"invalid_request_error\",\"code\":\"invalid_request_error\"}}Error: Error from provider(deepseek,deepseek-chat: 400): {}\n    at sendRequestToProvider (server.cjs:1180:11)","type":"api_error","code":"provider_response_error"}}`,
			`{"error":{"message":"Invalid max_tokens value","type":"invalid_request_error","code":"invalid_request_error"}}`},
		{"Gemini's array",
			`{"error":{"message":"Error from provider(gemini,gemini-2.5-flash: 503): [{\"error\":{\"code\":503,\"message\":\"The model is overloaded.\",\"status\":\"UNAVAILABLE\"}}]Error: Error from provider(gemini,gemini-2.5-flash: 503): [{\"error\":{\"code\":503,\"message\":\"The model is overloaded.\",\"status\":\"UNAVAILABLE\"}}]\n    at sendRequestToProvider (server.cjs:1180:11)","type":"api_error","code":"provider_response_error"}}`,
			`{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`},
		{"text body",
			`{"error":{"message":"Error from provider(ollama,qwen3: 502): Bad Gateway\nError: Error from provider(ollama,qwen3: 502): Bad Gateway\n    at sendRequestToProvider (server.cjs:1180:11)","type":"api_error","code":"provider_response_error"}}`,
			`{"error":{"code":"provider_response_error","message":"Error from provider(ollama,qwen3: 502): Bad Gateway","type":"api_error"}}`},
		// An upstream that says its error in a shape of its own: read as
		// BoundErrorBody reads it from that server answering directly.
		{"Ollama's error string",
			`{"error":{"message":"Error from provider(ollama,qwen3: 404): {\"error\":\"model \\\"qwen3\\\" not found, try pulling it first\"}Error: Error from provider(ollama,qwen3: 404): {\"error\":\"model \\\"qwen3\\\" not found, try pulling it first\"}\n    at sendRequestToProvider (server.cjs:1180:11)","type":"api_error","code":"provider_response_error"}}`,
			`{"error":{"message":"model \"qwen3\" not found, try pulling it first"}}`},
		{"FastAPI's detail",
			`{"error":{"message":"Error from provider(vllm,qwen3: 404): {\"detail\":\"Not Found\"}Error: Error from provider(vllm,qwen3: 404): {\"detail\":\"Not Found\"}\n    at sendRequestToProvider (server.cjs:1180:11)","type":"api_error","code":"provider_response_error"}}`,
			`{"error":{"message":"Not Found"}}`},
		{"JSON with no message",
			`{"error":{"message":"Error from provider(a,b: 500): {\"ok\":false}Error: Error from provider(a,b: 500): {\"ok\":false}\n    at x","type":"api_error","code":"provider_response_error"}}`,
			`{"error":{"code":"provider_response_error","message":"Error from provider(a,b: 500): {\"ok\":false}","type":"api_error"}}`},
		{"another code",
			`{"error":{"message":"Error from provider(a,b: 400): {\"message\":\"x\"}","type":"api_error","code":"internal_error"}}`,
			`{"error":{"message":"Error from provider(a,b: 400): {\"message\":\"x\"}","type":"api_error","code":"internal_error"}}`},
		{"no prefix",
			`{"error":{"message":"Provider x not found","type":"api_error","code":"provider_response_error"}}`,
			`{"error":{"message":"Provider x not found","type":"api_error","code":"provider_response_error"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := response(429, nil, []byte(tc.body))
			if cut := BoundErrorBody(res); cut != "" {
				t.Errorf("cut %q", cut)
			}
			if got, _ := io.ReadAll(res.Body); string(got) != tc.want {
				t.Errorf("BoundErrorBody(%s) gave %s, want %s", tc.body, got, tc.want)
			}
		})
	}
}
