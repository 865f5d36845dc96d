package wire

import (
	"strings"

	"github.com/tidwall/gjson"
)

// The model that signed a tool loop's turn.
//
// A request that ends with the results of an assistant turn's tool calls
// goes best to the model that made the calls: Claude with extended
// thinking refuses that request without the thinking blocks it signed on
// that turn ("Expected `thinking` or `redacted_thinking`, but found
// `tool_use`"), and would refuse another model's blocks; Gemini 3 takes
// Google's sentinel in place of its signature, but loses that step's
// reasoning (ai.google.dev/gemini-api/docs/thought-signatures). The
// results may be followed by a user message that carries what a tool
// message cannot hold, the images a tool returned (goose, Kimi Code): a
// gateway in front of Claude merges it into the tool results' message,
// so the turn is still the calls' ("preceding the lastmost set of
// `tool_use` and `tool_result` blocks"). A new user turn, after the
// model's answer, needs none of it: Claude's earlier turns' blocks are
// optional, and Gemini checks the current turn alone.

// signedFields are the message fields that hold what a model signed (see
// Origin): those a request to another model goes without.
var signedFields = [...]string{ReasoningDetails, ThinkingBlocks, ContentBlocks}

// SignedBy returns the index of the first of origins under which c keeps
// what a model signed for the last assistant message of msgs (a chat
// request's messages, JSON; see codec.History), when that message made
// tool calls and only their results follow it, tool messages and then
// perhaps user messages (see EndsWithResults): a call's
// extra_content, or the message's reasoning_details, thinking_blocks or
// content_blocks (reasoning_content and reasoning, plain text, go back
// to any model of the server). It returns -1 when msgs do not end so, or
// none of origins signed the turn. An origin whose Server is "" is
// passed over.
func (c *CallExtras) SignedBy(msgs []byte, origins []Origin) int {
	held := false
	for _, o := range origins {
		held = held || o.Server != "" && c.Holds(o.Server)
	}
	if !held {
		return -1
	}
	all := gjson.ParseBytes(msgs).Array()
	turn := EndsWithResults(len(all), func(i int) string { return all[i].Get("role").String() })
	if turn < 0 {
		return -1
	}
	calls := all[turn].Get("tool_calls")
	if !calls.IsArray() || strings.TrimSpace(calls.Raw[1:len(calls.Raw)-1]) == "" {
		return -1
	}
	var before History
	for _, m := range all[:turn] {
		before.Add(m)
	}
	var ids []string
	calls.ForEach(func(_, call gjson.Result) bool {
		ids = append(ids, call.Get("id").String())
		return true
	})
	first := calls.Get("0")
	args := first.Get("function.arguments").String()
	keys := [...]string{ArgsKey(ids[0], args, before.All()), ArgsKey(ids[0], args, before.Last()), TurnKey(ids[0], "")}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, o := range origins {
		if o.Server != "" && c.signed(o, ids, keys) {
			return i
		}
	}
	return -1
}

// EndsWithResults returns the index of the assistant message whose tool
// calls' results end a chat request of n messages, the i-th of role
// role(i): one or more tool messages, then perhaps user messages (a
// tool's images, which a tool message cannot hold, sent after the turn's
// results); -1 when they do not end so.
func EndsWithResults(n int, role func(i int) string) int {
	i := n - 1
	for i >= 0 && role(i) == "user" {
		i--
	}
	results := i
	for i >= 0 && role(i) == "tool" {
		i--
	}
	if i < 0 || i == results || role(i) != "assistant" {
		return -1
	}
	return i
}

// signed reports whether c keeps, under o, a non-empty extra_content of
// one of the calls ids, or a signed field of their turn (see turn).
// c.mu is held.
func (c *CallExtras) signed(o Origin, ids []string, keys [3]string) bool {
	for _, id := range ids {
		if id != "" && c.m[o.key(id, ExtraContent)] != "" {
			return true
		}
	}
	give := c.turn(o, keys)
	for i, field := range messageFields {
		for _, s := range signedFields {
			if field == s && give[i] != "" {
				return true
			}
		}
	}
	return false
}
