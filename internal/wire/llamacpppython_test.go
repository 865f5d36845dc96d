package wire

import "testing"

func TestLlamaCppPythonRequestError(t *testing.T) {
	const empty = `{"error":{"message":"","type":"internal_server_error","param":null,"code":null}}`
	two, one := []byte(`{"model":"m","prompt":["def add","class A:"]}`), []byte(`{"model":"m","prompt":"def add"}`)
	for _, tc := range []struct {
		name   string
		status int
		body   string
		asked  []byte
		want   bool
	}{
		{"two prompts", 500, empty, two, true},
		{"one prompt, no message", 500, empty, one, false},
		{"chat, no message", 500, empty, nil, false},
		{"logprobs", 500, `{"error":{"message":"logprobs is not supported for models created with logits_all=False","type":"internal_server_error","param":null,"code":null}}`, nil, true},
		{"tool_choice", 500, `{"error":{"message":"Tool choice 'get_time' not found in tools.","type":"internal_server_error","param":null,"code":null}}`, nil, true},
		{"a failed decode", 500, `{"error":{"message":"llama_decode returned 1","type":"internal_server_error","param":null,"code":null}}`, nil, false},
		{"another type", 500, `{"error":{"message":"","type":"server_error"}}`, two, false},
		{"a request error already", 400, empty, two, false},
	} {
		res := response(tc.status, nil, []byte(tc.body))
		BoundErrorBody(res)
		if got := LlamaCppPythonRequestError(res, tc.asked); got != tc.want {
			t.Errorf("%s: LlamaCppPythonRequestError(%d %s) = %v, want %v", tc.name, tc.status, tc.body, got, tc.want)
		}
	}
}
