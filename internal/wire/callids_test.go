package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestNineCharIDs: in the form NineCharCallID, WriteCallIDs writes
// every id not of 9 letters and digits as one that is, the same id as
// the same one wherever it is named, two ids as two, an id of that form
// kept, and none as one the request holds already; the same body gets
// the same ids every time, and a body without such ids is returned as it
// is.
func TestNineCharIDs(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"call_a"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"functions.f:1","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"call_a","content":"1"},{"role":"tool","tool_call_id":"functions.f:1","content":"2"},` +
		`{"role":"assistant","tool_calls":[{"id":"D681PevKs","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"D681PevKs","content":"3"}]}`
	out := WriteCallIDs([]byte(body), NineCharCallID)
	ids := func(b []byte) []string {
		var got []string
		for _, p := range []string{"messages.1.tool_calls.0.id", "messages.2.tool_call_id", "messages.1.tool_calls.1.id", "messages.3.tool_call_id", "messages.4.tool_calls.0.id", "messages.5.tool_call_id"} {
			got = append(got, gjson.GetBytes(b, p).String())
		}
		return got
	}
	got := ids(out)
	for _, id := range got {
		if !nineChar(id) {
			t.Errorf("WriteCallIDs gave id %q, want 9 letters and digits", id)
		}
	}
	if got[0] != got[1] || got[2] != got[3] || got[0] == got[2] {
		t.Errorf("WriteCallIDs gave %q: want each call's id the same as its tool message's, two ids two", got)
	}
	if got[4] != "D681PevKs" || got[5] != "D681PevKs" {
		t.Errorf("WriteCallIDs gave %q, %q for an id of the form; want it kept", got[4], got[5])
	}
	if c := gjson.GetBytes(out, "messages.0.content").String(); c != "call_a" {
		t.Errorf("WriteCallIDs changed a user's words to %q", c)
	}
	if again := ids(WriteCallIDs([]byte(body), NineCharCallID)); strings.Join(again, ",") != strings.Join(got, ",") {
		t.Errorf("WriteCallIDs gave %q, then %q: want the same ids every time", got, again)
	}
	if out := WriteCallIDs([]byte(chatWithID("", "hi")), NineCharCallID); !nineChar(gjson.GetBytes(out, "messages.1.tool_calls.0.id").String()) || gjson.GetBytes(out, "messages.1.tool_calls.0.id").String() != gjson.GetBytes(out, "messages.2.tool_call_id").String() {
		t.Errorf("WriteCallIDs gave %s for empty ids, want the call's and the tool message's one id of 9 letters and digits", out)
	}
	for _, in := range []string{`{"model":"m","messages":[{"role":"user","content":"hi"}]}`, `{"prompt":"x"}`, `{"messages":[{"role":"tool","tool_call_id":"abcdEFG12","content":"1"}]}`} {
		if got := string(WriteCallIDs([]byte(in), NineCharCallID)); got != in {
			t.Errorf("WriteCallIDs(%s) = %s, want it as it was", in, got)
		}
	}
	// A digest that falls on an id the request holds is written anew.
	taken := map[string]bool{nineCharOf("x", nil): true}
	if id := nineCharOf("x", taken); taken[id] || !nineChar(id) {
		t.Errorf("nineCharOf gave %q, which the request holds", id)
	}
}

// TestSafeCallIDs: in the form SafeCallID, WriteCallIDs writes only the
// ids not of 1 to 64 letters, digits, '_' and '-' (Kimi's, an empty one,
// a longer one), the call's and its tool message's as one; OpenAI's,
// Anthropic's and Mistral's ids are kept.
func TestSafeCallIDs(t *testing.T) {
	long := strings.Repeat("a", 65)
	for _, tt := range []struct {
		id   string
		keep bool
	}{
		{"functions.get_weather:0", false}, {"", false}, {long, false}, {"call_a|fc_b", false},
		{"call_PTLP8xhu3uwZk4l3nlnrrJha", true}, {"toolu_01A09q90qw90lq917835lq9", true}, {"D681PevKs", true}, {"chatcmpl-tool-3f1e", true}, {strings.Repeat("a", 64), true},
	} {
		out := WriteCallIDs([]byte(chatWithID(tt.id, "hi")), SafeCallID)
		call, answer := gjson.GetBytes(out, "messages.1.tool_calls.0.id").String(), gjson.GetBytes(out, "messages.2.tool_call_id").String()
		switch {
		case call != answer:
			t.Errorf("WriteCallIDs(%q) wrote the call as %q, its tool message as %q; want one id", tt.id, call, answer)
		case tt.keep && call != tt.id:
			t.Errorf("WriteCallIDs(%q) = %q, want it kept", tt.id, call)
		case !tt.keep && (call == tt.id || !safeChar(call)):
			t.Errorf("WriteCallIDs(%q) = %q, want an id of letters, digits, '_' and '-'", tt.id, call)
		}
	}
	if in := chatWithID("functions.f:1", "hi"); string(WriteCallIDs([]byte(in), AnyCallID)) != in {
		t.Errorf("WriteCallIDs in AnyCallID changed %s", in)
	}
}

// TestRefusedCallIDs: the refusal of an id not of 9 letters and digits
// is told by its words, as Mistral's API writes it, as OpenRouter passes
// it on, as vLLM writes it of an id's last 9 characters, as a Mistral
// chat template raises it through llama.cpp, and as vLLM's own Mistral
// template raises it of an id shorter than 9 (NineCharCallID); the
// refusal of an id not of letters, digits, '_' and '-' as Anthropic's
// API writes it, directly and through OpenRouter, and as Bedrock's
// Converse API writes it through a gateway (SafeCallID), when the
// request holds such an id; other refusals of a tool call's turn are
// not, nor Anthropic's of a tool's name, nor the words in an error that quotes the
// request, nor a refusal of a request that holds no id WriteCallIDs
// writes (a Responses request), which would be sent again the same.
func TestRefusedCallIDs(t *testing.T) {
	const (
		quoted   = "Mistral said: Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9. Why?"
		template = "llama.cpp said: Tool call IDs should be alphanumeric strings with length 9! Why?"
	)
	for _, tt := range []struct {
		status     int
		body, sent string
		want       CallIDForm
	}{
		{400, `{"object":"error","message":"Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_function_call","param":null,"code":"3280"}`, chatWithID("call_0fypS1hVX", "hi"), NineCharCallID},
		{400, `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"object\":\"error\",\"message\":\"Tool call id was call_98660886 but must be a-z, A-Z, 0-9, with a length of 9.\",\"type\":\"invalid_function_call\",\"param\":null,\"code\":\"3280\"}","provider_name":"Mistral"}}}`, chatWithID("call_98660886", "hi"), NineCharCallID},
		{400, `{"object":"error","message":"Tool call id was weather:0 but must be a-z, A-Z, 0-9, with a length of 9.","type":"BadRequestError","param":null,"code":400}`, chatWithID("functions.get_weather:0", "hi"), NineCharCallID},
		{400, `{"object":"error","message":"Tool call id was  but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_function_call","param":null,"code":"3280"}`, chatWithID("", "hi"), NineCharCallID},
		{500, `{"error":{"code":500,"message":"Error: Jinja Exception: Tool call IDs should be alphanumeric strings with length 9!","type":"server_error"}}`, chatWithID("call_k2x8f0qa", "hi"), NineCharCallID},
		{500, `{"error":{"code":500,"message":"Error: Jinja Exception: Tool call IDs should be alphanumeric strings with length 9!","type":"server_error"}}`, chatWithID("call_k2x8f0qa", template), NineCharCallID},
		{400, `{"object":"error","message":"Tool call IDs should be alphanumeric strings with length >= 9! (1)0","type":"BadRequestError","param":null,"code":400}`, chatWithID("0", "hi"), NineCharCallID},
		{400, `{"object":"error","message":"Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_function_call","param":null,"code":"3280"}`, chatWithID("call_0fypS1hVX", quoted), NineCharCallID},
		{400, `{"error":{"code":"invalid_request_error","message":"messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'","param":null,"type":"invalid_request_error"}}`, chatWithID("functions.get_weather:0", "hi"), SafeCallID},
		{400, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.2.content.0.tool_result.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'"}}`, chatWithID("call_a|fc_b", "hi"), SafeCallID},
		{400, `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.5.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'\"}}","provider_name":"Google"}}}`, chatWithID("functions.get_weather:0", "hi"), SafeCallID},
		{400, `{"detail":"An error occurred (ValidationException) when calling the Converse operation: 1 validation error detected: Value 'functions.get_weather:0' at 'messages.1.member.content.0.member.toolUse.toolUseId' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+"}`, chatWithID("functions.get_weather:0", "hi"), SafeCallID},
		{400, `{"detail":"An error occurred (ValidationException) when calling the Converse operation: 1 validation error detected: Value at 'messages.1.member.content.0.member.toolUse.toolUseId' failed to satisfy constraint: Member must have length less than or equal to 64"}`, chatWithID(strings.Repeat("x", 65), "hi"), SafeCallID},
		// A LiteLLM proxy that writes its upstream's body as Python's bytes
		// (b'…'): each ' escaped, \' in its message, \\' in its JSON.
		{400, `{"error":{"message":"litellm.BadRequestError: AnthropicException - b'{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.1.content.0.tool_use.id: String should match pattern \\'^[a-zA-Z0-9_-]+$\\'\"}}'. Received Model Group=claude-sonnet-4-5\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"400"}}`, chatWithID("functions.get_weather:0", "hi"), SafeCallID},
		{400, `{"error":{"message":"litellm.BadRequestError: BedrockException - b'{\"message\":\"1 validation error detected: Value \\'functions.get_weather:0\\' at \\'messages.1.member.content.0.member.toolUse.toolUseId\\' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+\"}'. Received Model Group=bedrock-claude\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"400"}}`, chatWithID("functions.get_weather:0", "hi"), SafeCallID},
		{400, `{"error":{"message":"litellm.BadRequestError: AnthropicException - b'{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"tools.0.custom.name: String should match pattern \\'^[a-zA-Z0-9_-]{1,64}$\\'\"}}'","type":null,"param":null,"code":"400"}}`, chatWithID("functions.get_weather:0", "hi"), AnyCallID},
		// Anthropic's words with no id of another form: nothing to write.
		{400, `{"error":{"code":"invalid_request_error","message":"messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'","param":null,"type":"invalid_request_error"}}`, chatWithID("toolu_01A09q90qw90lq917835lq9", "hi"), AnyCallID},
		{400, `{"type":"error","error":{"type":"invalid_request_error","message":"tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"}}`, chatWithID("functions.get_weather:0", "hi"), AnyCallID},
		{400, `{"error":{"message":"prompt too long: ` + strings.ReplaceAll(chatWithID("functions.get_weather:0", "tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"), `"`, `'`) + `","type":"invalid_request_error"}}`, chatWithID("functions.get_weather:0", "tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"), AnyCallID},
		{400, `{"error":{"message":"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.","type":"invalid_request_error"}}`, chatWithID("call_0fypS1hVX", "hi"), AnyCallID},
		{400, `{"error":{"message":"thinking is enabled but reasoning_content is missing in assistant tool call message at index 1","type":"invalid_request_error"}}`, chatWithID("call_0fypS1hVX", "hi"), AnyCallID},
		{200, `Tool call id was x but must be a-z, A-Z, 0-9, with a length of 9.`, chatWithID("x", "hi"), AnyCallID},
		// An error that quotes the request: the words are the caller's.
		{400, `{"error":{"message":"prompt too long: ` + strings.ReplaceAll(chatWithID("call_PTLP8xhu3uwZk4l3nlnrrJha", quoted), `"`, `'`) + `","type":"invalid_request_error"}}`, chatWithID("call_PTLP8xhu3uwZk4l3nlnrrJha", quoted), AnyCallID},
		{422, `{"detail":[{"type":"value_error","msg":"bad","input":` + chatWithID("call_k2x8f0qa", template) + `}]}`, chatWithID("call_k2x8f0qa", template), AnyCallID},
		// No id to write: a request sent again would be the same.
		{400, `{"object":"error","message":"Tool call id was _k2x8f0qa but must be a-z, A-Z, 0-9, with a length of 9.","type":"BadRequestError","param":null,"code":400}`, `{"model":"m","input":[{"type":"function_call","call_id":"call_k2x8f0qa","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"call_k2x8f0qa","output":"1"}]}`, AnyCallID},
		{500, `{"error":{"code":500,"message":"Error: Jinja Exception: Tool call IDs should be alphanumeric strings with length 9!","type":"server_error"}}`, chatWithID("abcdEFG12", "hi"), AnyCallID},
		{400, `{"object":"error","message":"Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_function_call","param":null,"code":"3280"}`, "", AnyCallID},
	} {
		res := &http.Response{StatusCode: tt.status, Body: io.NopCloser(strings.NewReader(tt.body))}
		if got := RefusedCallIDs(res, func() []byte { return []byte(tt.sent) }); got != tt.want {
			t.Errorf("RefusedCallIDs(%d %s) of %s = %v, want %v", tt.status, tt.body, tt.sent, got, tt.want)
		}
		if b, _ := io.ReadAll(res.Body); string(b) != tt.body && tt.status >= 400 {
			t.Errorf("RefusedCallIDs left the body %q, want it whole", b)
		}
	}
}

// chatWithID is a chat request whose user says text and whose one call
// and its tool message carry id.
func chatWithID(id, text string) string {
	return `{"model":"m","messages":[{"role":"user","content":"` + text + `"},` +
		`{"role":"assistant","tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"` + id + `","content":"1"}]}`
}
