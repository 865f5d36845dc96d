package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestNineCharIDs: every id not of 9 letters and digits is written as
// one that is, the same id as the same one wherever it is named, two ids
// as two, an id of that form kept, and none written as one the request
// holds already; the same body gets the same ids every time, and a body
// without such ids is returned as it is.
func TestNineCharIDs(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"call_a"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"functions.f:1","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"call_a","content":"1"},{"role":"tool","tool_call_id":"functions.f:1","content":"2"},` +
		`{"role":"assistant","tool_calls":[{"id":"D681PevKs","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"D681PevKs","content":"3"}]}`
	out := NineCharIDs([]byte(body))
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
			t.Errorf("NineCharIDs gave id %q, want 9 letters and digits", id)
		}
	}
	if got[0] != got[1] || got[2] != got[3] || got[0] == got[2] {
		t.Errorf("NineCharIDs gave %q: want each call's id the same as its tool message's, two ids two", got)
	}
	if got[4] != "D681PevKs" || got[5] != "D681PevKs" {
		t.Errorf("NineCharIDs gave %q, %q for an id of the form; want it kept", got[4], got[5])
	}
	if c := gjson.GetBytes(out, "messages.0.content").String(); c != "call_a" {
		t.Errorf("NineCharIDs changed a user's words to %q", c)
	}
	if again := ids(NineCharIDs([]byte(body))); strings.Join(again, ",") != strings.Join(got, ",") {
		t.Errorf("NineCharIDs gave %q, then %q: want the same ids every time", got, again)
	}
	if out := NineCharIDs([]byte(chatWithID("", "hi"))); !nineChar(gjson.GetBytes(out, "messages.1.tool_calls.0.id").String()) || gjson.GetBytes(out, "messages.1.tool_calls.0.id").String() != gjson.GetBytes(out, "messages.2.tool_call_id").String() {
		t.Errorf("NineCharIDs gave %s for empty ids, want the call's and the tool message's one id of 9 letters and digits", out)
	}
	for _, in := range []string{`{"model":"m","messages":[{"role":"user","content":"hi"}]}`, `{"prompt":"x"}`, `{"messages":[{"role":"tool","tool_call_id":"abcdEFG12","content":"1"}]}`} {
		if got := string(NineCharIDs([]byte(in))); got != in {
			t.Errorf("NineCharIDs(%s) = %s, want it as it was", in, got)
		}
	}
	// A digest that falls on an id the request holds is written anew.
	taken := map[string]bool{nineCharOf("x", nil): true}
	if id := nineCharOf("x", taken); taken[id] || !nineChar(id) {
		t.Errorf("nineCharOf gave %q, which the request holds", id)
	}
}

// TestRefusedCallIDs: the refusal of an id not of 9 letters and digits
// is told by its words, as Mistral's API writes it, as OpenRouter passes
// it on, as vLLM writes it of an id's last 9 characters, as a Mistral
// chat template raises it through llama.cpp, and as vLLM's own Mistral
// template raises it of an id shorter than 9; other refusals of a
// tool call's turn are not, nor the words in an error that quotes the
// request, nor a refusal of a request that holds no id NineCharIDs
// writes (a Responses request), which would be sent again the same.
func TestRefusedCallIDs(t *testing.T) {
	const (
		quoted   = "Mistral said: Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9. Why?"
		template = "llama.cpp said: Tool call IDs should be alphanumeric strings with length 9! Why?"
	)
	for _, tt := range []struct {
		status     int
		body, sent string
		want       bool
	}{
		{400, `{"object":"error","message":"Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_function_call","param":null,"code":"3280"}`, chatWithID("call_0fypS1hVX", "hi"), true},
		{400, `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"object\":\"error\",\"message\":\"Tool call id was call_98660886 but must be a-z, A-Z, 0-9, with a length of 9.\",\"type\":\"invalid_function_call\",\"param\":null,\"code\":\"3280\"}","provider_name":"Mistral"}}}`, chatWithID("call_98660886", "hi"), true},
		{400, `{"object":"error","message":"Tool call id was weather:0 but must be a-z, A-Z, 0-9, with a length of 9.","type":"BadRequestError","param":null,"code":400}`, chatWithID("functions.get_weather:0", "hi"), true},
		{400, `{"object":"error","message":"Tool call id was  but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_function_call","param":null,"code":"3280"}`, chatWithID("", "hi"), true},
		{500, `{"error":{"code":500,"message":"Error: Jinja Exception: Tool call IDs should be alphanumeric strings with length 9!","type":"server_error"}}`, chatWithID("call_k2x8f0qa", "hi"), true},
		{500, `{"error":{"code":500,"message":"Error: Jinja Exception: Tool call IDs should be alphanumeric strings with length 9!","type":"server_error"}}`, chatWithID("call_k2x8f0qa", template), true},
		{400, `{"object":"error","message":"Tool call IDs should be alphanumeric strings with length >= 9! (1)0","type":"BadRequestError","param":null,"code":400}`, chatWithID("0", "hi"), true},
		{400, `{"object":"error","message":"Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_function_call","param":null,"code":"3280"}`, chatWithID("call_0fypS1hVX", quoted), true},
		{400, `{"error":{"message":"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.","type":"invalid_request_error"}}`, chatWithID("call_0fypS1hVX", "hi"), false},
		{400, `{"error":{"message":"thinking is enabled but reasoning_content is missing in assistant tool call message at index 1","type":"invalid_request_error"}}`, chatWithID("call_0fypS1hVX", "hi"), false},
		{200, `Tool call id was x but must be a-z, A-Z, 0-9, with a length of 9.`, chatWithID("x", "hi"), false},
		// An error that quotes the request: the words are the caller's.
		{400, `{"error":{"message":"prompt too long: ` + strings.ReplaceAll(chatWithID("call_PTLP8xhu3uwZk4l3nlnrrJha", quoted), `"`, `'`) + `","type":"invalid_request_error"}}`, chatWithID("call_PTLP8xhu3uwZk4l3nlnrrJha", quoted), false},
		{422, `{"detail":[{"type":"value_error","msg":"bad","input":` + chatWithID("call_k2x8f0qa", template) + `}]}`, chatWithID("call_k2x8f0qa", template), false},
		// No id to write: a request sent again would be the same.
		{400, `{"object":"error","message":"Tool call id was _k2x8f0qa but must be a-z, A-Z, 0-9, with a length of 9.","type":"BadRequestError","param":null,"code":400}`, `{"model":"m","input":[{"type":"function_call","call_id":"call_k2x8f0qa","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"call_k2x8f0qa","output":"1"}]}`, false},
		{500, `{"error":{"code":500,"message":"Error: Jinja Exception: Tool call IDs should be alphanumeric strings with length 9!","type":"server_error"}}`, chatWithID("abcdEFG12", "hi"), false},
		{400, `{"object":"error","message":"Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_function_call","param":null,"code":"3280"}`, "", false},
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
