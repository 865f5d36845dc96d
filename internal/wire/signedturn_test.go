package wire

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestSignedBy checks which origin signed a tool loop's turn: the
// model under whose server and name the turn's signed fields are kept,
// only when the messages end with the results of that turn's calls
// (perhaps followed by a user message with a tool's images);
// plain reasoning, which any model of the server takes, names none.
func TestSignedBy(t *testing.T) {
	blocks := `[{"type":"thinking","thinking":"Weather.","signature":"EqQB"}]`
	msgs := gjson.Get(request("toolu_1"), "messages").Raw
	var c CallExtras
	keepTurn := func(o Origin, id, field, raw string) {
		before := HistoryOf([]byte(`[{"content":"Weather?","role":"user"}]`))
		c.Keep(o, ArgsKey(id, `{"city":"Paris <&>"}`, before.All()), field, raw)
	}
	opus := Origin{Server: "litellm:4000", Model: "claude-opus"}
	sonnet := Origin{Server: "litellm:4000", Model: "claude-sonnet-4-5"}
	gemini := Origin{Server: "gemini:443", Model: "gemini-3-flash"}
	deepseek := Origin{Server: "deepseek:443", Model: "deepseek-reasoner"}
	keepTurn(Origin{Server: sonnet.Server, Model: "claude-sonnet-4-5-20250929"}, "toolu_1", ThinkingBlocks, blocks)
	keepTurn(deepseek, "toolu_1", ReasoningContent, `"Weather."`)

	image := strings.TrimSuffix(msgs, "]") + `,{"content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBO"}}],"role":"user"}]`
	newTurn := strings.TrimSuffix(msgs, "]") + `,{"content":"Sunny.","role":"assistant"},{"content":"And Rome?","role":"user"}]`
	noCall := `[{"content":"Hi","role":"user"},{"content":"Hello","role":"assistant"},{"content":"x","role":"tool"}]`
	for _, tc := range []struct {
		name    string
		msgs    string
		origins []Origin
		want    int
	}{
		{"the signer second, by its alias", msgs, []Origin{opus, sonnet}, 1},
		{"the signer first of two", msgs, []Origin{sonnet, opus}, 0},
		{"another model of the server", msgs, []Origin{opus}, -1},
		{"an unknown server", msgs, []Origin{{}, sonnet}, 1},
		{"plain reasoning", msgs, []Origin{deepseek}, -1},
		{"a tool's image after the results", image, []Origin{opus, sonnet}, 1},
		{"a new user turn", newTurn, []Origin{opus, sonnet}, -1},
		{"a user message alone after the calls", strings.Replace(msgs, `"role":"tool","tool_call_id":"call_1"`, `"role":"user"`, 1), []Origin{sonnet}, -1},
		{"an assistant turn without calls", noCall, []Origin{sonnet}, -1},
		{"the assistant turn last", strings.TrimSuffix(msgs, `,{"content":"sunny","role":"tool","tool_call_id":"call_1"}]`) + "]", []Origin{sonnet}, -1},
	} {
		if got := c.SignedBy([]byte(tc.msgs), tc.origins); got != tc.want {
			t.Errorf("%s: SignedBy = %d, want %d", tc.name, got, tc.want)
		}
	}

	c.Keep(gemini, "toolu_1", ExtraContent, sig)
	if got := c.SignedBy([]byte(msgs), []Origin{opus, gemini}); got != 1 {
		t.Errorf("a call's extra_content: SignedBy = %d, want 1", got)
	}
	var none *CallExtras
	if got := none.SignedBy([]byte(msgs), []Origin{sonnet}); got != -1 {
		t.Errorf("nil CallExtras: SignedBy = %d, want -1", got)
	}
}
