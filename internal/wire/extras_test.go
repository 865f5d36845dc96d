package wire

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

const sig = `{"google":{"thought_signature":"CpwBAdHtim9Xk3sQ"}}`

// request is a chat request whose assistant message names calls ids, as
// openai-go writes it (no extra_content).
func request(ids ...string) string {
	var calls []string
	for _, id := range ids {
		calls = append(calls, `{"id":"`+id+`","function":{"arguments":"{\"city\":\"Paris <&>\"}","name":"get_weather"},"type":"function"}`)
	}
	return `{"messages":[{"content":"Weather?","role":"user"},{"role":"assistant","tool_calls":[` + strings.Join(calls, ",") +
		`]},{"content":"sunny","role":"tool","tool_call_id":"call_1"}],"model":"gemini-3-flash-preview","seed":9007199254740993,"temperature":0.70}`
}

// extrasOf returns the extra_content of each tool call of body's second
// message ("" for none), and fails on a body that is not such a request.
func extrasOf(t *testing.T, body []byte) []string {
	t.Helper()
	var r struct {
		Messages []struct {
			ToolCalls []map[string]json.RawMessage `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &r); err != nil || len(r.Messages) < 2 {
		t.Fatalf("body %s: %v", body, err)
	}
	var out []string
	for _, c := range r.Messages[1].ToolCalls {
		out = append(out, string(c["extra_content"]))
	}
	return out
}

// TestCallExtrasRestore checks that a kept call's extra content goes back
// on that call, only to the server that sent it, never over the caller's
// own, and that the rest of the request keeps its values as written.
func TestCallExtrasRestore(t *testing.T) {
	var c CallExtras
	c.Keep(Origin{Server: "gemini:443"}, "call_1", ExtraContent, sig)
	c.Keep(Origin{Server: "gemini:443"}, "call_3", ExtraContent, "null")
	c.Keep(Origin{Server: "gemini:443"}, "", ExtraContent, sig)

	out, fields := c.Restore(Origin{Server: "gemini:443"}, []byte(request("call_1", "call_2", "call_3")), keepAll)
	changed := len(fields) > 0
	if got := extrasOf(t, out); !changed || got[0] != sig || got[1] != "" || got[2] != "" {
		t.Errorf("Restore: changed %v, extras %q, want the signature on call_1 only", changed, got)
	}
	if rest := strings.Replace(string(out), `"extra_content":`+sig+`,`, "", 1); rest != request("call_1", "call_2", "call_3") {
		t.Errorf("Restore changed more than it gave: %s", out)
	}

	for _, tc := range []struct{ name, server, body string }{
		{"another server", "openai:443", request("call_1")},
		{"no such call", "gemini:443", request("call_9")},
		{"no tool calls", "gemini:443", `{"messages":[{"role":"user","content":"hi"}]}`},
		{"not JSON", "gemini:443", `{"messages":[{"tool_calls":`},
		{"its own extra content, empty", "gemini:443", strings.Replace(request("call_1"), `"type":"function"}`, `"type":"function","extra_content":{}}`, 1)},
		{"its own extra content", "gemini:443", strings.Replace(request("call_1"), `"type":"function"}`, `"type":"function","extra_content":{"mine":1}}`, 1)},
	} {
		if out, fields := c.Restore(Origin{Server: tc.server}, []byte(tc.body), keepAll); len(fields) > 0 || string(out) != tc.body {
			t.Errorf("%s: Restore changed the request to %s", tc.name, out)
		}
	}
	var none *CallExtras
	none.Keep(Origin{Server: "gemini:443"}, "call_1", ExtraContent, sig)
	if none.Holds("gemini:443") {
		t.Error("the nil CallExtras holds a call")
	}
}

// TestCallExtrasBounded checks that what a server sends cannot grow the
// store past its bounds: the oldest calls make room, and an extra content
// over the per-call bound is not kept.
func TestCallExtrasBounded(t *testing.T) {
	var c CallExtras
	for i := range maxExtras + 10 {
		c.Keep(Origin{Server: "s"}, fmt.Sprint("call_", i), ExtraContent, sig)
	}
	if len(c.m) != maxExtras {
		t.Errorf("%d calls kept, want %d", len(c.m), maxExtras)
	}
	if _, ok := c.m[callKey{"s", "", "call_0", ExtraContent}]; ok {
		t.Error("the oldest call was kept past the bound")
	}
	if _, ok := c.m[callKey{"s", "", fmt.Sprint("call_", maxExtras+9), ExtraContent}]; !ok {
		t.Error("the newest call was not kept")
	}

	big := `"` + strings.Repeat("x", maxExtraBytes) + `"`
	c.Keep(Origin{Server: "s"}, "huge", ExtraContent, big)
	if _, ok := c.m[callKey{"s", "", "huge", ExtraContent}]; ok {
		t.Error("an extra content over maxExtraBytes was kept")
	}
	large := `"` + strings.Repeat("x", maxExtraBytes-2) + `"`
	for i := range 2 * maxExtrasBytes / maxExtraBytes {
		c.Keep(Origin{Server: "t"}, fmt.Sprint("large_", i), ExtraContent, large)
	}
	if c.bytes > maxExtrasBytes {
		t.Errorf("%d bytes kept, want at most %d", c.bytes, maxExtrasBytes)
	}
	sum := 0
	for _, v := range c.m {
		sum += len(v)
	}
	if sum != c.bytes || c.servers["s"]+c.servers["t"] != len(c.m) {
		t.Errorf("bookkeeping: %d bytes counted, %d held; servers %v for %d calls", c.bytes, sum, c.servers, len(c.m))
	}
}

// TestCallExtrasRestoreDetails checks that the reasoning details kept
// under a message's call go back on the assistant message that names the
// call, once, and never over the caller's own.
func TestCallExtrasRestoreDetails(t *testing.T) {
	const details = `[{"type":"reasoning.encrypted","data":"CiQB","id":"call_1","format":"google-gemini-v1","index":0}]`
	var c CallExtras
	c.Keep(Origin{Server: "openrouter.ai:443"}, "call_1", ReasoningDetails, details)

	out, fields := c.Restore(Origin{Server: "openrouter.ai:443"}, []byte(request("call_1", "call_2")), keepAll)
	changed := len(fields) > 0
	var r struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(out, &r); err != nil || !changed {
		t.Fatalf("Restore: changed %v, %v", changed, err)
	}
	if got := string(r.Messages[1][ReasoningDetails]); got != details {
		t.Errorf("assistant message reasoning_details = %s, want %s", got, details)
	}
	if r.Messages[0][ReasoningDetails] != nil || r.Messages[2][ReasoningDetails] != nil {
		t.Errorf("reasoning_details given to a message that made no call: %s", out)
	}
	if got := extrasOf(t, out); got[0] != "" || got[1] != "" {
		t.Errorf("extra_content given to calls without any kept: %q", got)
	}

	own := strings.Replace(request("call_1"), `{"role":"assistant",`, `{"role":"assistant","reasoning_details":[],`, 1)
	if out, fields := c.Restore(Origin{Server: "openrouter.ai:443"}, []byte(own), keepAll); len(fields) > 0 || string(out) != own {
		t.Errorf("Restore replaced the caller's own reasoning_details: %s", out)
	}
}

// TestCallExtrasRestoreReasoning checks that the reasoning content and
// details kept under a message's call both go back on the assistant
// message that names the call, and that a field the server refused is
// not given.
func TestCallExtrasRestoreReasoning(t *testing.T) {
	const reasoning, details = `"The user wants the weather."`, `[{"type":"reasoning.text","text":"t"}]`
	var c CallExtras
	c.Keep(Origin{Server: "api.deepseek.com:443"}, "call_1", ReasoningContent, reasoning)
	c.Keep(Origin{Server: "api.deepseek.com:443"}, "call_1", ReasoningDetails, details)
	out, fields := c.Restore(Origin{Server: "api.deepseek.com:443"}, []byte(request("call_1")), keepAll)
	var r struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(out, &r); err != nil || len(fields) != 2 {
		t.Fatalf("Restore gave %v: %v", fields, err)
	}
	if got := string(r.Messages[1][ReasoningContent]); got != reasoning || string(r.Messages[1][ReasoningDetails]) != details {
		t.Errorf("assistant message: reasoning_content %s, reasoning_details %s; want %s and %s", got, r.Messages[1][ReasoningDetails], reasoning, details)
	}
	out, fields = c.Restore(Origin{Server: "api.deepseek.com:443"}, []byte(request("call_1")), func(f string) bool { return f == ReasoningContent })
	if strings.Contains(string(out), ReasoningContent) || len(fields) != 1 || fields[0] != ReasoningDetails {
		t.Errorf("with reasoning_content refused: gave %v: %s", fields, out)
	}
}

// TestCallExtrasRestoreTurn checks that what a turn without tool calls
// carried goes back on the assistant message of the same content, and on
// no other.
func TestCallExtrasRestoreTurn(t *testing.T) {
	const reasoning = `"Greet back."`
	var c CallExtras
	c.Keep(Origin{Server: "api.deepseek.com:443"}, TurnKey("", "Hello <there>!"), ReasoningContent, reasoning)
	body := `{"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello \u003cthere\u003e!"},{"role":"user","content":"And?"},{"role":"assistant","content":"Other."}],"model":"deepseek-v4-flash"}`
	out, fields := c.Restore(Origin{Server: "api.deepseek.com:443"}, []byte(body), keepAll)
	var r struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(out, &r); err != nil || len(fields) != 1 {
		t.Fatalf("Restore gave %v: %v", fields, err)
	}
	if got := string(r.Messages[1][ReasoningContent]); got != reasoning {
		t.Errorf("the turn's message: reasoning_content %s, want %s", got, reasoning)
	}
	for _, i := range []int{0, 2, 3} {
		if r.Messages[i][ReasoningContent] != nil {
			t.Errorf("message %d was given reasoning_content: %s", i, out)
		}
	}
	if TurnKey("", "") != "" || TurnKey("call_1", "x") != "call_1" {
		t.Errorf("TurnKey: %q for nothing, %q for a call", TurnKey("", ""), TurnKey("call_1", "x"))
	}
}

// BenchmarkCallExtrasRestore measures a request to a server with kept
// calls: one whose conversation names a kept call (rewritten), and one
// that names none (read, left as it is).
func BenchmarkCallExtrasRestore(b *testing.B) {
	var c CallExtras
	c.Keep(Origin{Server: "gemini:443"}, "call_1", ExtraContent, sig)
	history := strings.Repeat(`{"role":"user","content":"`+strings.Repeat("lorem ipsum ", 100)+`"},`, 20)
	for _, bc := range []struct{ name, id string }{{"rewritten", "call_1"}, {"unchanged", "call_9"}} {
		body := []byte(strings.Replace(request(bc.id), `{"messages":[`, `{"messages":[`+history, 1))
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				c.Restore(Origin{Server: "gemini:443"}, body, keepAll)
			}
		})
	}
}

// keepAll skips no field.
func keepAll(string) bool { return false }

// keepTurn keeps raw under each id of a turn after history (a JSON array
// of messages) whose first call is call with args, or whose content is
// content, as the client keeps it.
func keepTurn(c *CallExtras, server, history, call, args, content, field, raw string) {
	h := HistoryOf([]byte(history))
	c.Share(Origin{Server: server}, TurnKey(call, content), field, raw)
	if call == "" {
		c.Share(Origin{Server: server}, AnswerKey(content, h.Last()), field, raw)
		c.Keep(Origin{Server: server}, AnswerKey(content, h.All()), field, raw)
		return
	}
	c.Share(Origin{Server: server}, ArgsKey(call, args, h.Last()), field, raw)
	c.Keep(Origin{Server: server}, ArgsKey(call, args, h.All()), field, raw)
}

// restored returns message i of what Restore makes of body: its field.
func restored(t *testing.T, c *CallExtras, server, body string, i int, field string) string {
	t.Helper()
	out, _ := c.Restore(Origin{Server: server}, []byte(body), keepAll)
	var r struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(out, &r); err != nil || len(r.Messages) <= i {
		t.Fatalf("Restore: %s: %v", out, err)
	}
	return string(r.Messages[i][field])
}

// TestCallExtrasRestoreArgs checks that of turns whose first calls share
// an id (Kimi's functions.NAME:N in two conversations), each message is
// given what was kept for its own conversation and arguments, the
// arguments read as JSON; that a conversation cut to its last message
// still finds it unless two turns differed there; and that a message
// whose arguments were changed is given nothing: a Kimi id alone names
// no turn.
func TestCallExtrasRestoreArgs(t *testing.T) {
	const id, server = "functions.get_weather:0", "kimi:8000"
	history := func(system, city string) string {
		return `[{"role":"system","content":"` + system + `"},{"role":"user","content":"Weather in ` + city + `?"}]`
	}
	body := func(system, city, args string) string {
		h := history(system, city)
		return `{"messages":` + h[:len(h)-1] + `,{"role":"assistant","tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"get_weather","arguments":` + strconv.Quote(args) + `}}]},{"role":"tool","tool_call_id":"` + id + `","content":"sunny"}],"model":"k"}`
	}
	ann, bob, tokyo := `"Ann in Paris."`, `"Bob in Paris."`, `"Tokyo."`
	var c CallExtras
	keepTurn(&c, server, history("Ann", "Paris"), id, `{"city": "Paris <&>", "unit": 1.0}`, "", Reasoning, ann)
	for _, tt := range []struct{ name, body, want string }{
		{"its own", body("Ann", "Paris", `{"city": "Paris <&>", "unit": 1.0}`), ann},
		{"arguments written again", body("Ann", "Paris", `{"unit":1.0,"city":"Paris \u003c&\u003e"}`), ann},
		{"the conversation cut", `{"messages":[{"role":"user","content":"Weather in Paris?"},{"role":"user","content":"Weather in Paris?"},{"role":"assistant","tool_calls":[{"id":"` + id + `","function":{"arguments":"{\"city\":\"Paris <&>\",\"unit\":1.0}"}}]}]}`, ann},
	} {
		if got := restored(t, &c, server, tt.body, 2, Reasoning); got != tt.want {
			t.Errorf("%s: given %s, want %s", tt.name, got, tt.want)
		}
	}
	keepTurn(&c, server, history("Bob", "Paris"), id, `{"city": "Paris <&>", "unit": 1.0}`, "", Reasoning, bob)
	keepTurn(&c, server, history("Cid", "Tokyo"), id, `{"city": "Tokyo"}`, "", Reasoning, tokyo)
	for _, tt := range []struct{ name, body, want string }{
		{"Ann's", body("Ann", "Paris", `{"city":"Paris <&>","unit":1.0}`), ann},
		{"Bob's", body("Bob", "Paris", `{"city": "Paris <&>", "unit": 1.0}`), bob},
		{"Ann's cut to the message both answered", `{"messages":[{"role":"user","content":"Weather in Paris?"},{"role":"user","content":"Weather in Paris?"},{"role":"assistant","tool_calls":[{"id":"` + id + `","function":{"arguments":"{\"city\":\"Paris <&>\",\"unit\":1.0}"}}]}]}`, ""},
		{"Cid's cut to the message it answered", `{"messages":[{"role":"user","content":"Hi."},{"role":"user","content":"Weather in Tokyo?"},{"role":"assistant","tool_calls":[{"id":"` + id + `","function":{"arguments":"{\"city\":\"Tokyo\"}"}}]}]}`, tokyo},
		{"Cid's edited", body("Cid", "Tokyo", `{"city": "Tokyo", "unit": "C"}`), ""},
	} {
		if got := restored(t, &c, server, tt.body, 2, Reasoning); got != tt.want {
			t.Errorf("%s: given %s, want %s", tt.name, got, tt.want)
		}
	}
	if ArgsKey("", "{}", "") != "" || ArgsKey(id, "{}", "") == ArgsKey(id, "[]", "") || ArgsKey(id, `{"a":1}`, "") != ArgsKey(id, `{ "a" : 1 }`, "") {
		t.Errorf("ArgsKey: %q for no call; two arguments told apart or one not", ArgsKey("", "{}", ""))
	}
}

// TestCallExtrasRestoreAnswer checks that of turns of the same words
// without calls, each message is given what was kept for the
// conversation before it, and that a message after another conversation
// is given what only one turn kept under its content, and nothing once
// two turns differed under it.
func TestCallExtrasRestoreAnswer(t *testing.T) {
	const server = "api.deepseek.com:443"
	ann, bob := `"Ann greets me."`, `"Bob greets me."`
	history := func(name string) string {
		return `[{"role":"system","content":"I am ` + name + `."},{"role":"user","content":"Hi."}]`
	}
	body := func(name string) string {
		h := history(name)
		return `{"messages":` + h[:len(h)-1] + `,{"role":"assistant","content":" Hello! "},{"role":"user","content":"Who am I?"}],"model":"deepseek-v4-flash"}`
	}
	var c CallExtras
	keepTurn(&c, server, history("Ann"), "", "", "Hello!", ReasoningContent, ann)
	if got := restored(t, &c, server, body("Cid"), 2, ReasoningContent); got != ann {
		t.Errorf("the one turn kept: given %s, want %s", got, ann)
	}
	keepTurn(&c, server, history("Bob"), "", "", "Hello!", ReasoningContent, bob)
	for _, tt := range []struct{ name, want string }{{"Ann", ann}, {"Bob", bob}, {"Cid", ""}} {
		if got := restored(t, &c, server, body(tt.name), 2, ReasoningContent); got != tt.want {
			t.Errorf("the turn after %s's: given %s, want %s", tt.name, got, tt.want)
		}
	}
	if AnswerKey(" ", "") != "" || AnswerKey("Hello!", "a") == AnswerKey("Hello!", "b") {
		t.Errorf("AnswerKey: %q for no content; the same key for two conversations", AnswerKey(" ", ""))
	}
}

// TestCallExtrasKimiIDAloneAfterEviction checks that a Kimi call id,
// which every conversation repeats (functions.NAME:N), gives nothing
// under the id alone, even once the store has dropped what marked it as
// shared: a conversation whose own entries were dropped meanwhile would
// otherwise be given the latest conversation's reasoning.
func TestCallExtrasKimiIDAloneAfterEviction(t *testing.T) {
	const id, server = "functions.get_weather:0", "kimi:8000"
	var c CallExtras
	keepTurn(&c, server, `[{"role":"user","content":"Weather in Paris?"}]`, id, `{"city":"Paris"}`, "", Reasoning, `"Paris."`)
	keepTurn(&c, server, `[{"role":"user","content":"Weather in Rome?"}]`, id, `{"city":"Rome"}`, "", Reasoning, `"Rome."`)
	for i := range maxExtras {
		c.Keep(Origin{Server: server}, "call_"+strconv.Itoa(i), Reasoning, `"other"`)
	}
	keepTurn(&c, server, `[{"role":"user","content":"Weather in Tokyo?"}]`, id, `{"city":"Tokyo"}`, "", Reasoning, `"Tokyo."`)
	c.Keep(Origin{Server: server}, "call_x", ExtraContent, `{}`) // the server still held
	body := `{"messages":[{"role":"user","content":"Weather in Paris?"},{"role":"assistant","tool_calls":[{"id":"` + id + `","function":{"arguments":"{\"city\":\"Paris\"}"}}]}]}`
	if got := restored(t, &c, server, body, 1, Reasoning); got != "" {
		t.Errorf("Paris's turn, its entries dropped: given %s, want nothing", got)
	}
	if TurnKey("functions.get_weather:12", "") != "" || TurnKey("functions.get_weather", "") == "" || TurnKey("call_0", "") != "call_0" {
		t.Errorf("TurnKey: a Kimi id kept alone, or another id not")
	}
}

// TestCallExtrasRestoreRegenerated checks a turn generated again for the
// same conversation: a message of either answer's words is given that
// answer's reasoning, and one of the words both said the latest's, as for
// a call both made with the same arguments.
func TestCallExtrasRestoreRegenerated(t *testing.T) {
	const server, history = "api.deepseek.com:443", `[{"role":"user","content":"Hi."}]`
	var c CallExtras
	for _, turn := range []struct{ content, raw string }{{"Hello!", `"one"`}, {"Hi there!", `"two"`}, {"Hello!", `"three"`}} {
		keepTurn(&c, server, history, "", "", turn.content, ReasoningContent, turn.raw)
		keepTurn(&c, server, history, "functions.f:0", `{}`, "", Reasoning, turn.raw)
	}
	for _, tt := range []struct{ message, field, want string }{
		{`"content":"Hi there!"`, ReasoningContent, `"two"`},
		{`"content":"Hello!"`, ReasoningContent, `"three"`},
		{`"tool_calls":[{"id":"functions.f:0","function":{"arguments":"{}"}}]`, Reasoning, `"three"`},
	} {
		body := `{"messages":[{"role":"user","content":"Hi."},{"role":"assistant",` + tt.message + `}]}`
		if got := restored(t, &c, server, body, 1, tt.field); got != tt.want {
			t.Errorf("{%s}: given %s, want %s", tt.message, got, tt.want)
		}
	}
}

// TestCallExtrasByModel checks that what a model signed (a call's
// extra_content, reasoning_details, thinking_blocks, content_blocks) goes
// back to that model of the server alone, and the plain reasoning
// (reasoning_content, reasoning) to the server whatever the model.
func TestCallExtrasByModel(t *testing.T) {
	signed := map[string]string{
		ReasoningDetails: `[{"type":"reasoning.encrypted","data":"x"}]`,
		ThinkingBlocks:   `[{"type":"thinking","thinking":"t","signature":"S"}]`,
		ContentBlocks:    `[{"type":"thinking","thinking":"t","signature":"S"}]`,
	}
	plain := map[string]string{ReasoningContent: `"thought"`, Reasoning: `"thought"`}
	var c CallExtras
	made := Origin{Server: "proxy:4000", Model: "claude-sonnet"}
	c.Keep(made, "call_1", ExtraContent, sig)
	for field, raw := range signed {
		c.Keep(made, "call_1", field, raw)
	}
	for field, raw := range plain {
		c.Keep(made, "call_1", field, raw)
	}
	body := request("call_1")
	for _, tc := range []struct {
		name  string
		model string
		want  map[string]bool
	}{
		{"the model that made them", "claude-sonnet", map[string]bool{ExtraContent: true, ReasoningDetails: true, ThinkingBlocks: true, ContentBlocks: true, ReasoningContent: true, Reasoning: true}},
		{"another model of the server", "claude-opus", map[string]bool{ReasoningContent: true, Reasoning: true}},
	} {
		_, fields := c.Restore(Origin{Server: "proxy:4000", Model: tc.model}, []byte(body), keepAll)
		got := map[string]bool{}
		for _, f := range fields {
			got[f] = true
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: Restore gave %v, want %v", tc.name, fields, tc.want)
		}
	}
}

// TestCallExtrasSnapshotAlias checks that what a dated snapshot of a
// model signed goes back to the model's alias and to its Vertex AI name,
// and the other way round, but not to another model whose name starts
// the same.
func TestCallExtrasSnapshotAlias(t *testing.T) {
	for _, tc := range []struct {
		made, asked string
		signed      bool
	}{
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5", true},
		{"claude-sonnet-4-5", "claude-sonnet-4-5-20250929", true},
		{"claude-sonnet-4-5@20250929", "claude-sonnet-4-5-20250929", true},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4", false},
		{"claude-sonnet-4-20250514", "claude-sonnet-4-5", false},
		{"claude-sonnet-4-5-20250929", "claude-opus-4-5", false},
		{"claude-sonnet-4-5-2025092x", "claude-sonnet-4-5", false},
		{"gpt-5-2025-08-07", "gpt-5-2025", false},
	} {
		var c CallExtras
		c.Keep(Origin{Server: "proxy:4000", Model: tc.made}, "call_1", ThinkingBlocks, `[{"type":"thinking","thinking":"t","signature":"S"}]`)
		_, fields := c.Restore(Origin{Server: "proxy:4000", Model: tc.asked}, []byte(request("call_1")), keepAll)
		if got := len(fields) == 1; got != tc.signed {
			t.Errorf("signed by %s, asked of %s: Restore gave %v, want the blocks given back %v", tc.made, tc.asked, fields, tc.signed)
		}
	}
}
