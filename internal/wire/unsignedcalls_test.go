package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

const skipExtra = `{"google":{"thought_signature":"skip_thought_signature_validator"}}`

// TestSkipField checks which requests take the sentinel, and in which
// field: Gemini 3 and later on Google's endpoints, OpenRouter and a
// server that signs calls; no other model, no other server.
func TestSkipField(t *testing.T) {
	for _, tc := range []struct {
		server, model string
		signs         bool
		want          string
	}{
		{"generativelanguage.googleapis.com:443", "gemini-3-flash-preview", false, ExtraContent},
		{"generativelanguage.googleapis.com", "models/gemini-3.1-pro-preview", false, ExtraContent},
		{"us-central1-aiplatform.googleapis.com:443", "google/gemini-3-pro-preview", false, ExtraContent},
		{"aiplatform.googleapis.com:443", "google/gemini-3-flash-preview", false, ExtraContent},
		{"generativelanguage.googleapis.com:443", "gemini-12-pro", false, ExtraContent},
		{"openrouter.ai:443", "google/gemini-3-pro-preview", false, ReasoningDetails},
		{"gateway:8080", "gemini-3-pro-preview", true, ExtraContent},
		{"gateway:8080", "gemini-3-pro-preview", false, ""}, // nothing says it reads the field
		{"generativelanguage.googleapis.com:443", "gemini-2.5-flash", false, ""},
		{"generativelanguage.googleapis.com:443", "gemini-flash-latest", false, ""},
		{"generativelanguage.googleapis.com:443", "gemma-3-27b-it", false, ""},
		{"openrouter.ai:443", "anthropic/claude-sonnet-4.5", false, ""},
		{"openrouter.ai:443", "google/gemini-2.5-pro", false, ""},
		{"api.openai.com:443", "gpt-5", true, ""},
		{"gateway:8080", "claude-sonnet-4-5", true, ""},
		{"gateway:8080", "", true, ""},
	} {
		if got := SkipField(tc.server, tc.model, tc.signs); got != tc.want {
			t.Errorf("SkipField(%q, %q, %v) = %q, want %q", tc.server, tc.model, tc.signs, got, tc.want)
		}
	}
}

// TestSkipUnsigned checks where the sentinel goes: on the first call of
// each assistant message of the current turn that no signature came
// with, never on a call or message that has one, never before the last
// user message; and that the rest of the body stays as it was written.
func TestSkipUnsigned(t *testing.T) {
	calls := func(extra ...string) string {
		var cs []string
		for i, x := range extra {
			id := "call_" + string(rune('1'+i))
			c := `{"id":"` + id + `","function":{"arguments":"{}","name":"get_weather"},"type":"function"}`
			if x != "" {
				c = `{"extra_content":` + x + `,"id":"` + id + `","function":{"arguments":"{}","name":"get_weather"},"type":"function"}`
			}
			cs = append(cs, c)
		}
		return `{"role":"assistant","tool_calls":[` + strings.Join(cs, ",") + `]}`
	}
	user := `{"role":"user","content":"Weather?"}`
	tool := `{"role":"tool","tool_call_id":"call_1","content":"sunny"}`
	body := func(msgs ...string) string {
		return `{"model":"gemini-3-pro-preview","messages":[` + strings.Join(msgs, ",") + `],"seed":9007199254740993}`
	}
	for _, tc := range []struct {
		name, field string
		in, want    string
	}{
		{"a call another model made", ExtraContent,
			body(user, calls(""), tool),
			body(user, strings.Replace(calls(""), `{"id":"call_1"`, `{"extra_content":`+skipExtra+`,"id":"call_1"`, 1), tool)},
		{"parallel calls: the first alone", ExtraContent,
			body(user, calls("", ""), tool),
			body(user, strings.Replace(calls("", ""), `{"id":"call_1"`, `{"extra_content":`+skipExtra+`,"id":"call_1"`, 1), tool)},
		{"two steps of the current turn", ExtraContent,
			body(user, calls(""), tool, calls(""), tool),
			body(user, strings.Replace(calls(""), `{"id":"call_1"`, `{"extra_content":`+skipExtra+`,"id":"call_1"`, 1), tool,
				strings.Replace(calls(""), `{"id":"call_1"`, `{"extra_content":`+skipExtra+`,"id":"call_1"`, 1), tool)},
		{"a signed call kept", ExtraContent,
			body(user, calls(sig, ""), tool), body(user, calls(sig, ""), tool)},
		{"the caller's own extra_content on a later call", ExtraContent,
			body(user, calls("", sig), tool), body(user, calls("", sig), tool)},
		{"an earlier turn is not checked", ExtraContent,
			body(user, calls(""), tool, `{"role":"assistant","content":"Sunny."}`, user),
			body(user, calls(""), tool, `{"role":"assistant","content":"Sunny."}`, user)},
		{"OpenRouter: an encrypted entry naming the first call", ReasoningDetails,
			body(user, calls("", ""), tool),
			body(user, `{"reasoning_details":[{"type":"reasoning.encrypted","data":"skip_thought_signature_validator","id":"call_1","format":"google-gemini-v1","index":0}],`+calls("", "")[1:], tool)},
		{"OpenRouter: the message's own details kept", ReasoningDetails,
			body(user, `{"reasoning_details":[{"type":"reasoning.encrypted","data":"S","id":"call_1"}],`+calls("")[1:], tool),
			body(user, `{"reasoning_details":[{"type":"reasoning.encrypted","data":"S","id":"call_1"}],`+calls("")[1:], tool)},
		{"no field: nothing", "", body(user, calls(""), tool), body(user, calls(""), tool)},
		{"a turn without calls", ExtraContent, body(user, `{"role":"assistant","content":"Hi"}`), body(user, `{"role":"assistant","content":"Hi"}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, given := SkipUnsigned([]byte(tc.in), tc.field)
			if string(out) != tc.want || given != (tc.in != tc.want) {
				t.Errorf("SkipUnsigned(%s, %q) = %s, %v\nwant %s", tc.in, tc.field, out, given, tc.want)
			}
		})
	}
}

// TestCallExtrasSigns checks that a server is known to sign calls while
// a call's extra_content of its is kept, and not for other fields.
func TestCallExtrasSigns(t *testing.T) {
	var c CallExtras
	c.Keep(Origin{Server: "or:443", Model: "m"}, "call_1", ReasoningDetails, `[{"type":"reasoning.encrypted"}]`)
	if c.Signs("or:443") {
		t.Errorf("Signs after reasoning_details alone = true, want false")
	}
	c.Keep(Origin{Server: "gw:443", Model: "gemini-3-flash-preview"}, "call_1", ExtraContent, sig)
	if !c.Signs("gw:443") || c.Signs("other:443") {
		t.Errorf("Signs(gw) = %v, Signs(other) = %v, want true, false", c.Signs("gw:443"), c.Signs("other:443"))
	}
	for i := range maxExtras {
		c.Keep(Origin{Server: "or:443"}, "id"+string(rune('a'+i%26))+strings.Repeat("x", i/26), ReasoningDetails, `[1]`)
	}
	if c.Signs("gw:443") {
		t.Errorf("Signs after its value was evicted = true, want false")
	}
}

// TestSkipRefusal checks that a refusal naming the field the sentinel
// went in is blamed on the sentinel when the request carried it, before
// what the server sent in the same field, so that the server is not
// learnt as refusing its own signatures; and that the name does not
// otherwise match the sentinel's value.
func TestSkipRefusal(t *testing.T) {
	for _, tc := range []struct {
		body   string
		fields []string
		want   string
	}{
		{`[{"error":{"code":400,"message":"Invalid JSON payload received. Unknown name \"google\" at 'messages[1].tool_calls[0].extra_content': Cannot find field.","status":"INVALID_ARGUMENT"}}]`,
			[]string{SkipRefusal(ExtraContent), ExtraContent}, SkipRefusal(ExtraContent)},
		{`{"error":{"message":"Unrecognized request argument supplied: reasoning_details"}}`,
			[]string{SkipRefusal(ReasoningDetails), ReasoningDetails}, SkipRefusal(ReasoningDetails)},
		{`[{"error":{"code":400,"message":"Function call is missing a thought_signature in functionCall parts.","status":"INVALID_ARGUMENT"}}]`,
			[]string{SkipRefusal(ExtraContent)}, ""},
	} {
		res := &http.Response{StatusCode: http.StatusBadRequest, Body: io.NopCloser(strings.NewReader(tc.body))}
		if got := RefusedField(res, tc.fields); got != tc.want {
			t.Errorf("RefusedField(%s, %q) = %q, want %q", tc.body, tc.fields, got, tc.want)
		}
	}
}

// TestSkipUnsignedNoCopy checks that a Gemini 3 request without tool
// calls is passed on without a copy of its body: the look for calls
// reads the body in place.
func TestSkipUnsignedNoCopy(t *testing.T) {
	body := []byte(`{"model":"gemini-3-pro-preview","messages":[{"role":"user","content":"` + strings.Repeat("x", 1<<16) + `"}]}`)
	if n := testing.AllocsPerRun(10, func() { SkipUnsigned(body, ExtraContent) }); n != 0 {
		t.Errorf("SkipUnsigned of a 64 KiB body without calls: %v allocations, want 0", n)
	}
}
