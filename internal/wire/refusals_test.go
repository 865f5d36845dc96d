package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestRefusedField: a 400 or 422 whose body names a field the client
// added refuses it, whatever the server's wording; any other answer does
// not, and the body stays readable.
func TestRefusedField(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   bool
	}{
		{400, `{"error":{"message":"Unrecognized request argument supplied: stream_options","type":"invalid_request_error"}}`, true},
		{400, `{"error":{"message":"Unknown parameter: 'stream_options'.","param":"stream_options","code":"unknown_parameter"}}`, true},
		{422, `{"detail":[{"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted"}]}`, true},
		// transformers serve: a field of UNUSED_CHAT_COMPLETION_FIELDS,
		// named in a Python set (src/transformers/cli/serving/utils.py).
		{422, `{"detail":"Unsupported fields in the request: {'stream_options'}"}`, true},
		// Venice.ai: zod's unrecognized_keys in an error array
		// (ar-jan/llm-venice#3, the body as logged).
		{400, `{"error":[{"code":"unrecognized_keys","keys":["stream_options"],"path":[],"message":"Unrecognized key(s) in object: 'stream_options'"}]}`, true},
		// Databricks' serving endpoints: Go's "json: unknown field"
		// (continuedev/continue#12936; the envelope assumed).
		{400, `{"error_code":"BAD_REQUEST","message":"json: unknown field \"stream_options\""}`, true},
		// Azure OpenAI On Your Data, data_sources beside stream_options
		// (openai/openai-python#2296; the envelope assumed).
		{400, `{"error":{"code":"invalid_payload","message":"Validation error at #/stream_options: Extra inputs are not permitted"}}`, true},
		{400, `{"error":{"message":"max_tokens is too large"}}`, false},
		{500, `{"error":{"message":"stream_options failed"}}`, false},
		{200, `data: {"stream_options":1}`, false},
	} {
		res := &http.Response{StatusCode: tc.status, Body: io.NopCloser(strings.NewReader(tc.body))}
		if got := RefusedField(res, []string{ReasoningContent, StreamOptions}) == StreamOptions; got != tc.want {
			t.Errorf("%d %s: refused %v, want %v", tc.status, tc.body, got, tc.want)
		}
		if b, _ := io.ReadAll(res.Body); string(b) != tc.body {
			t.Errorf("%d: body %q after the check, want it unchanged", tc.status, b)
		}
	}
}

// TestWithout takes the member out and leaves the rest as it
// was.
func TestWithout(t *testing.T) {
	in := `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"stream_options"}]}`
	out, ok := Without([]byte(in), StreamOptions)
	if want := `{"model":"m","stream":true,"messages":[{"role":"user","content":"stream_options"}]}`; !ok || string(out) != want {
		t.Errorf("Without = %s, %v; want %s, true", out, ok, want)
	}
	if out, ok := Without(out, StreamOptions); ok || string(out) != `{"model":"m","stream":true,"messages":[{"role":"user","content":"stream_options"}]}` {
		t.Errorf("a body without the member: %s, %v; want it unchanged, false", out, ok)
	}
}

// TestRefusedMaxTokens: max_tokens is refused by any error that names it,
// whatever the wording, a value too large included (the request is then
// sent again without it and gets the caller's own answer).
func TestRefusedMaxTokens(t *testing.T) {
	for _, tc := range []struct {
		body string
		want bool
	}{
		{`{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`, true},
		{`{"error":{"message":"Setting 'max_tokens' and 'max_completion_tokens' at the same time is not supported.","type":"invalid_request_error","code":"invalid_parameter_combination","param":"max_tokens"}}`, true},
		{`{"error":{"code":"InvalidParameter","message":"The parameter max_tokens specified in the request are not valid: max_tokens and max_completion_tokens cannot be set at the same time.","param":"max_tokens","type":"BadRequest"}}`, true},
		{`{"detail":[{"type":"extra_forbidden","loc":["body","max_tokens"],"msg":"Extra inputs are not permitted"}]}`, true},
		{`{"object":"error","message":"'max_tokens' or 'max_completion_tokens' is too large: 5000. This model's maximum context length is 4096 tokens and your request has 12 input tokens (5000 > 4096 - 12).","type":"BadRequestError","param":null,"code":400}`, true},
		{`{"error":{"message":"Unsupported parameter: 'logit_bias'","param":"logit_bias"}}`, false},
	} {
		res := &http.Response{StatusCode: 400, Body: io.NopCloser(strings.NewReader(tc.body))}
		if got := RefusedField(res, []string{StreamOptions, MaxTokens}) == MaxTokens; got != tc.want {
			t.Errorf("%s: refused %v, want %v", tc.body, got, tc.want)
		}
	}
}

// TestRefusedMaxCompletionTokens: the caller's max_completion_tokens,
// beside the max_tokens the client added, is refused only by an error
// that forbids it (Mistral's extra_forbidden, an unsupported or unknown
// parameter, Azure AI Foundry's extra parameters), never by one that names it for its value: a server that
// reads it alone would lose the caller's limit from then on. max_tokens
// goes first where an error names both.
func TestRefusedMaxCompletionTokens(t *testing.T) {
	fields := []string{StreamOptions, MaxTokens, MaxCompletionTokens}
	for _, tc := range []struct {
		body string
		want string
	}{
		{`{"detail":[{"type":"extra_forbidden","loc":["body","max_completion_tokens"],"msg":"Extra inputs are not permitted","input":5}]}`, MaxCompletionTokens},
		{`{"error":{"message":"body.max_completion_tokens: Extra inputs are not permitted","type":"extra_forbidden"}}`, MaxCompletionTokens},
		{`{"error":{"message":"Unrecognized request argument supplied: max_completion_tokens","type":"invalid_request_error"}}`, MaxCompletionTokens},
		{`{"error":{"message":"Unsupported parameter: 'max_completion_tokens'","type":"invalid_request_error","param":"max_completion_tokens"}}`, MaxCompletionTokens},
		{`{"detail":"Extra parameters ['max_completion_tokens'] are not allowed when extra-parameters is not set or set to be 'error'. Set extra-parameters to 'pass-through' to pass to the model."}`, MaxCompletionTokens},
		{`{"error":{"message":"max_completion_tokens must be at most 4096","type":"invalid_request_error","param":"max_completion_tokens"}}`, ""},
		{`{"error":{"message":"Values of max_completion_tokens above 4096 are not allowed","param":"max_completion_tokens"}}`, ""},
		{`{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","param":"max_tokens"}}`, MaxTokens},
		{`{"object":"error","message":"'max_tokens' or 'max_completion_tokens' is too large: 5000.","type":"BadRequestError","code":400}`, MaxTokens},
	} {
		res := &http.Response{StatusCode: 422, Body: io.NopCloser(strings.NewReader(tc.body))}
		if got := RefusedField(res, fields); got != tc.want {
			t.Errorf("%s: refused %q, want %q", tc.body, got, tc.want)
		}
	}
}

// TestRefusedInAnEcho: an error that echoes the whole request names every
// field it had; it refuses one only where the error names it once more
// (TensorRT-LLM's validation errors, the request as their input).
func TestRefusedInAnEcho(t *testing.T) {
	const echo = `'input': {'model': 'm', 'prompt': 'def add', 'suffix': 'print(add(1, 2))', 'stream': True, 'stream_options': {'include_usage': True}}`
	for _, tc := range []struct {
		body string
		want bool
	}{
		{`{"error":"[{'type': 'value_error', 'loc': ('body',), 'msg': 'Value error, suffix is not supported', ` + echo + `}]"}`, false},
		{`{"error":"[{'type': 'value_error', 'loc': ('body',), 'msg': 'Value error, stream_options is not supported', ` + echo + `}]"}`, true},
		{`{"detail":[{"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted","input":{"include_usage":true}}]}`, true},
		{`{"error":{"message":"Unknown parameter: 'stream_options'.","type":"invalid_request_error","param":"stream_options"}}`, true},
	} {
		res := &http.Response{StatusCode: 400, Body: io.NopCloser(strings.NewReader(tc.body))}
		if got := RefusedField(res, []string{StreamOptions}) == StreamOptions; got != tc.want {
			t.Errorf("%s: refused %v, want %v", tc.body, got, tc.want)
		}
	}
}

// TestTakesMaxCompletionTokens: OpenAI's and Azure OpenAI's hosts, with
// or without a port; no other.
func TestTakesMaxCompletionTokens(t *testing.T) {
	for host, want := range map[string]bool{
		"api.openai.com": true, "API.OpenAI.com:443": true, "my-res.openai.azure.com": true,
		"my-res.cognitiveservices.azure.com": true, "localhost:11434": false, "openai.com.example.org": false,
		"[::1]:8000": false, "api.openai.com.evil.test": false,
	} {
		if got := TakesMaxCompletionTokens(host); got != want {
			t.Errorf("TakesMaxCompletionTokens(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestRefusedAfterValidationList: FastAPI's list of validation errors,
// made an error object of its message by BoundErrorBody, still names the
// field it refuses, and only that one (Mistral's 422).
func TestRefusedAfterValidationList(t *testing.T) {
	for body, want := range map[string]string{
		`{"detail":[{"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted","input":{"include_usage":true}}]}`: StreamOptions,
		`{"detail":[{"type":"extra_forbidden","loc":["body","max_tokens"],"msg":"Extra inputs are not permitted","input":64}]}`:                         MaxTokens,
		`{"detail":[{"type":"extra_forbidden","loc":["body","store"],"msg":"Extra inputs are not permitted","input":false}]}`:                           "",
	} {
		res := &http.Response{StatusCode: 422, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body))}
		BoundErrorBody(res)
		if got := RefusedField(res, []string{StreamOptions, MaxTokens}); got != want {
			t.Errorf("%s: refused %q, want %q", body, got, want)
		}
	}
}
