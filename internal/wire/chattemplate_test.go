package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestTemplateRefused: a chat template's raise_exception, in the words of
// llama.cpp's own template engine, of minja before it or of Paddler's, is
// a refusal of the request's messages; a template's own failure, in any
// of these forms, and another message are not.
func TestTemplateRefused(t *testing.T) {
	for _, tt := range []struct {
		name, msg string
		want      bool
	}{
		{"own engine, raise_exception",
			"\n------------\nWhile executing CallExpression at line 106, column 32 in source:\n...first %}↵            {{- raise_exception('System message must be at the beginnin...\n                                           ^\nError: Jinja Exception: System message must be at the beginning.",
			true},
		{"own engine, a filter the engine lacks",
			"\n------------\nWhile executing FilterExpression at line 12, column 25 in source:\n...{{- message.content | safe }}...\n                       ^\nError: Unknown (built-in) filter 'safe' for type String",
			false},
		{"minja, raise_exception", // skye-harris/hass_local_openai_llm#18
			"Message has tool role, but there was no previous assistant message with a tool call! at row 319, column 120:\n            {%- if last_tool_call.name is none %}\n                {{- raise_exception(\"Message has tool role, but there was no previous assistant message with a tool call!\") }}\n                                                                                                                       ^\n            {%- endif %}\n at row 319, column 13:\n",
			true},
		{"minja, a failure on the line below a raise",
			"Unknown filter 'safe' at row 12, column 30:\n    {{- raise_exception('Roles must alternate') }}\n    {{- message.content | safe }}\n                             ^\n{%- endfor %}\n",
			false},
		{"Paddler, raise_exception",
			`Some("agent-1"): failed to render chat template: invalid operation: Model's chat template raised an exception: 'After the optional system message, conversation roles must alternate user/assistant/user/assistant/...' (in chat_template:18)`,
			true},
		{"Paddler, a filter minijinja lacks",
			`Some("agent-1"): failed to render chat template: unknown filter: filter safe is unknown (in chat_template:12)`,
			false},
		{"minja, no caret line", "Unknown method: startswith at row 3, column 10:", false},
		{"the server's own failure", "llama_decode failed", false},
	} {
		if got := TemplateRefused(tt.msg); got != tt.want {
			t.Errorf("%s: TemplateRefused(%q) = %v, want %v", tt.name, tt.msg, got, tt.want)
		}
	}
}

// TestChatTemplateRefusal: a chat template's refusal answered with 500 is
// a request error whichever server sent it (llama.cpp's own, one that
// passed its answer on without its Server header, or a gateway that
// wrapped it in an error of its own type, as LiteLLM's null); the same
// message under another status, or a 500 of another message, is not. The
// body is kept for the next reader.
func TestChatTemplateRefusal(t *testing.T) {
	const refusal = `{"error":{"code":500,"message":"\n------------\nWhile executing CallExpression at line 19, column 27 in source:\n...% 2 == 0) -%}↵        {{ raise_exception(\"Conversation roles must alternate user...\n                                           ^\nError: Jinja Exception: Conversation roles must alternate user/assistant/user/assistant/...","type":"server_error"}}`
	for _, tt := range []struct {
		server string
		status int
		body   string
		want   bool
	}{
		{"llama.cpp", 500, refusal, true},
		{"", 500, refusal, true},
		{"llama.cpp", 503, refusal, false},
		{"", 500, strings.Replace(refusal, "server_error", "unavailable_error", 1), true},
		{"uvicorn", 500, `{"error":{"message":"litellm.InternalServerError: InternalServerError: OpenAIException - \n------------\nWhile executing CallExpression at line 85, column 32 in source:\n...first %}↵            {{- raise_exception('System message must be at the beginnin...\n                                           ^\nError: Jinja Exception: System message must be at the beginning.. Received Model Group=qwen3\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"500"}}`, true},
		{"uvicorn", 500, `{"error":{"message":"litellm.InternalServerError: InternalServerError: OpenAIException - llama_decode failed. Received Model Group=qwen3\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"500"}}`, false},
		{"llama.cpp", 500, `{"error":{"code":500,"message":"llama_decode failed","type":"server_error"}}`, false},
		{"llama.cpp", 500, `Jinja Exception: not JSON`, false},
		{"", 500, `{"error":{"code":null,"message":"None: failed to render chat template: invalid operation: Model's chat template raised an exception: 'Conversation roles must alternate' (in chat_template:1)","param":null,"type":"server_error"}}`, true},
	} {
		res := &http.Response{StatusCode: tt.status, Header: http.Header{"Server": {tt.server}}, Body: io.NopCloser(strings.NewReader(tt.body))}
		if got := ChatTemplateRefusal(res); got != tt.want {
			t.Errorf("ChatTemplateRefusal(%q %d %s) = %v, want %v", tt.server, tt.status, tt.body, got, tt.want)
		}
		if b, _ := io.ReadAll(res.Body); string(b) != tt.body {
			t.Errorf("body after ChatTemplateRefusal = %q, want it kept", b)
		}
	}
}
