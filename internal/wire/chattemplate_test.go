package wire

import "testing"

// TestTemplateRefused: a chat template's raise_exception, in the words of
// llama.cpp's own template engine or of minja before it, is a refusal of
// the request's messages; a template's own failure, in either form, and
// another message are not.
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
		{"minja, no caret line", "Unknown method: startswith at row 3, column 10:", false},
		{"the server's own failure", "llama_decode failed", false},
	} {
		if got := templateRefused(tt.msg); got != tt.want {
			t.Errorf("%s: templateRefused(%q) = %v, want %v", tt.name, tt.msg, got, tt.want)
		}
	}
}
