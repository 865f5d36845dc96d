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
		{"a body its schema refuses", 500, `{"error":{"message":"1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}\n  File \"app.py\", line 402, in create_chat_completion\n    POST /v1/chat/completions","type":"internal_server_error","param":null,"code":null}}`, nil, true},
		{"two errors, FastAPI before the endpoint's place", 500, `{"error":{"message":"2 validation errors:\n  {'type': 'missing', 'loc': ('body', 'messages'), 'msg': 'Field required', 'input': {}}\n  {'type': 'missing', 'loc': ('body', 'model'), 'msg': 'Field required', 'input': {}}","type":"internal_server_error","param":null,"code":null}}`, nil, true},
		{"its own answer refused by its response model", 500, `{"error":{"message":"1 validation error:\n  {'type': 'missing', 'loc': ('response', 'choices', 0, 'message', 'refusal'), 'msg': 'Field required'}","type":"internal_server_error","param":null,"code":null}}`, nil, false},
		{"a model's words", 500, `{"error":{"message":"3 validation errors happened","type":"internal_server_error","param":null,"code":null}}`, nil, false},
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
