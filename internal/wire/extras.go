package wire

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// Tool calls' extra content and reasoning details, given back to the
// server that sent them.
//
// Gemini 3 signs the thinking behind each function call and returns the
// signature on the call, as extra_content.google.thought_signature
// (extra_content.vertex.thought_signature on Vertex AI). The next request
// must carry it back on that call in the assistant message, or Gemini
// refuses the request: 400 "Function call is missing a thought_signature in
// functionCall parts" (ai.google.dev/gemini-api/docs/thought-signatures).
// openai-go keeps no field it does not know when it turns a message into
// a request (ChatCompletionMessage.ToParam), so the assistant turn a
// caller builds from an answer, streamed or not, loses the signature, and
// the conversation's second request fails. OpenRouter carries the same
// signature, for Gemini and other reasoning models, in the assistant
// message's reasoning_details, which it streams in fragments, and refuses
// a tool call's next turn without them ("Gemini models require OpenRouter
// reasoning details to be preserved in each request";
// openrouter.ai/docs/guides/best-practices/reasoning-tokens). DeepSeek's
// thinking mode wants the reasoning_content of a message that made tool
// calls back on it, and refuses the next request without it: 400 "Missing
// `reasoning_content` field in the assistant message"
// (api-docs.deepseek.com/guides/thinking_mode#tool-calls), and V4 that of
// every turn ("The `reasoning_content` in the thinking mode must be passed
// back to the API"). CallExtras keeps each call's extra_content and its
// message's reasoning_details and reasoning_content, by server and call
// id (a turn without calls by its content: see TurnKey), and Restore writes them back
// into a later request to that server whose assistant message names the
// call without them; what a model signed, only into a request to that
// model (see Origin). A request to any other server is left as it is:
// another vendor may refuse a field it does not know; and one the server
// itself refuses is sent again without it (see RefusedFields).

// Bounds of what CallExtras keeps: a server sends what it likes, and the
// oldest entries make room for new ones.
const (
	maxExtras      = 1024    // values kept, all servers together
	maxExtraBytes  = 1 << 20 // one value; a larger one is not kept
	maxExtrasBytes = 8 << 20 // all of them
)

// CallExtras keeps the extra_content of tool calls and the
// reasoning_details of the messages that made them, by server
// ("host:port"), model (for what a model signed: see Origin) and call
// id, within fixed bounds. Its methods are safe for
// concurrent use; the nil CallExtras keeps nothing.
type CallExtras struct {
	mu      sync.Mutex
	m       map[callKey]string
	order   []callKey // oldest first, from head on
	head    int
	bytes   int
	servers map[string]int // values kept per server
	signs   map[string]int // calls' extra_content kept per server (see Signs)
}

type callKey struct{ server, model, id, field string }

// Origin names where an answer came from, and where a request goes: the
// server ("host:port") and the model the request asked for there.
//
// What a model signed is given back to that model alone: Anthropic binds
// a thinking block's signature to the model that made it, and refuses
// the block sent to another, 400 "Invalid `signature` in `thinking`
// block" (openclaw/openclaw#107221, vybestack/llxprt-code#2335: a
// conversation carried on with another Claude model); Gemini refuses a
// thought signature another model made, 400 "Corrupted thought
// signature." (lbjlaq/Antigravity-Manager#970: a task moved from Claude
// to Gemini 3 Flash), and a gateway gives one back within the model's
// family alone (lbjlaq/Antigravity-Manager
// src-tauri/src/proxy/mappers/claude/request.rs, is_model_compatible:
// "Vertex AI signatures are very strict", gemini-1.5-pro apart from
// gemini-1.5-flash). One
// server often serves several models (a LiteLLM or Portkey gateway,
// OpenRouter), and a Router's routes may ask two models of one server,
// so the server alone does not name the signer. reasoning_content and
// reasoning hold plain text, which no server checks, and which DeepSeek
// V4 wants back whichever of its models wrote it: those go back to the
// server whatever the model. A dated snapshot and its alias name one
// model (see signer).
type Origin struct{ Server, Model string }

// key returns the key of field of call id kept from, or given to, o.
func (o Origin) key(id, field string) callKey {
	if field == ReasoningContent || field == Reasoning {
		return callKey{server: o.Server, id: id, field: field}
	}
	return callKey{o.Server, signer(o.Model), id, field}
}

// signer returns the model that model names, as its signatures go: model
// without a snapshot date ("-YYYYMMDD", or Vertex AI's "@YYYYMMDD"). A
// Claude model before the 4.6 generation has a dated ID
// (claude-sonnet-4-5-20250929, claude-sonnet-4-5@20250929 on Vertex AI)
// and an alias, claude-sonnet-4-5, that points at its latest snapshot
// (platform.claude.com/docs/en/about-claude/models/model-ids-and-versions):
// one model, whose tool call's next turn the alias refuses without the
// blocks the snapshot signed ("Expected `thinking` or
// `redacted_thinking`, but found `tool_use`"). Two snapshots of one
// minor version would share a key: no Claude model with thinking has had
// two.
func signer(model string) string {
	i := len(model) - len("-20250929")
	if i <= 0 || model[i] != '-' && model[i] != '@' || model[i+1:i+3] != "20" {
		return model
	}
	for _, c := range []byte(model[i+1:]) {
		if c < '0' || c > '9' {
			return model
		}
	}
	return model[:i]
}

// Fields CallExtras keeps: extra_content on a tool call (Gemini); and,
// kept under the message's first call, reasoning_details (OpenRouter),
// reasoning_content (DeepSeek) and reasoning (vLLM since v0.16, whose
// chat input reads that name alone) on the assistant message that made
// the call: the reasoning in the field the server streamed it in.
//
// ThinkingBlocks (LiteLLM) and ContentBlocks (Portkey's gateway, strict
// OpenAI compliance off) hold the thinking blocks Claude signed, which a
// relay of Claude builds the assistant turn's blocks from (see
// codec.SignedBlocks). Portkey reads content_blocks in place of the
// message's content, so Restore gives them back with the message's text
// after them as a text block.
const (
	ExtraContent     = "extra_content"
	ReasoningDetails = "reasoning_details"
	ReasoningContent = "reasoning_content"
	Reasoning        = "reasoning"
	ThinkingBlocks   = "thinking_blocks"
	ContentBlocks    = "content_blocks"
)

// messageFields are the fields CallExtras keeps on a message.
var messageFields = [...]string{ReasoningDetails, ReasoningContent, Reasoning, ThinkingBlocks, ContentBlocks}

// Keep keeps raw, the JSON of field (ExtraContent or a message's field)
// of call id as it came from o, in place of what id held. An empty id,
// an empty or null raw, or one over maxExtraBytes is not kept.
func (c *CallExtras) Keep(o Origin, id, field, raw string) { c.keep(o, id, field, raw, false) }

// Share keeps raw as Keep does under an id that more than one turn may
// have (see TurnKey): unless the id holds another value already, in
// which case it holds none from then on, while it is kept, and Restore
// gives nothing under it.
func (c *CallExtras) Share(o Origin, id, field, raw string) { c.keep(o, id, field, raw, true) }

func (c *CallExtras) keep(o Origin, id, field, raw string, shared bool) {
	if c == nil || id == "" || raw == "" || raw == "null" || len(raw) > maxExtraBytes || !json.Valid([]byte(raw)) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m, c.servers, c.signs = make(map[callKey]string), make(map[string]int), make(map[string]int)
	}
	k := o.key(id, field)
	if old, ok := c.m[k]; ok {
		if shared && old != raw {
			raw = "" // two turns under one id: it names neither
		}
		c.bytes += len(raw) - len(old)
		c.m[k] = raw
	} else {
		c.m[k] = raw
		c.bytes += len(raw)
		c.servers[o.Server]++
		if field == ExtraContent {
			c.signs[o.Server]++
		}
		c.order = append(c.order, k)
	}
	for len(c.m) > maxExtras || c.bytes > maxExtrasBytes {
		c.evictOldest()
	}
}

// evictOldest drops the oldest call kept; c.mu is held.
func (c *CallExtras) evictOldest() {
	k := c.order[c.head]
	c.order[c.head] = callKey{}
	c.head++
	if c.head > len(c.order)/2 {
		c.order = append(c.order[:0], c.order[c.head:]...)
		c.head = 0
	}
	c.bytes -= len(c.m[k])
	delete(c.m, k)
	if c.servers[k.server]--; c.servers[k.server] == 0 {
		delete(c.servers, k.server)
	}
	if k.field == ExtraContent {
		if c.signs[k.server]--; c.signs[k.server] == 0 {
			delete(c.signs, k.server)
		}
	}
}

// Holds reports whether any call of server is kept: only then can Restore
// change a request to it.
func (c *CallExtras) Holds(server string) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.servers[server] > 0
}

// Signs reports whether server sent a tool call's extra_content that is
// kept: a server that signs calls as Gemini's OpenAI endpoint does (a
// gateway relaying it), and so reads the field back (see SkipField).
func (c *CallExtras) Signs(server string) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.signs[server] > 0
}

// Restore returns body, a chat request to o, with what was kept
// given back to each assistant message that names a kept call of
// o's: the call's extra_content, and the message's
// reasoning_details and reasoning_content, each where the message has
// none of its own and skip does not name the field; what a model signed
// only to that model (see Origin). It returns the
// fields it gave, each once. What it gives is written into the body as
// the first member of the call or message object; every other byte of
// the body stays as it was. A body it cannot read as a chat request is
// returned as it is.
func (c *CallExtras) Restore(o Origin, body []byte, skip func(field string) bool) ([]byte, []string) {
	if !c.Holds(o.Server) || !bytes.Contains(body, []byte(`"assistant"`)) {
		return body, nil
	}
	msgs := gjson.GetBytes(body, "messages")
	if !msgs.IsArray() || msgs.Index <= 0 {
		return body, nil
	}
	var ins []insertion
	c.mu.Lock()
	var before History
	msgs.ForEach(func(_, m gjson.Result) bool {
		ins = c.restoreMessage(o, m, &before, skip, ins)
		before.Add(m)
		return true
	})
	c.mu.Unlock()
	if len(ins) == 0 {
		return body, nil
	}
	var fields []string
	for _, in := range ins {
		if !slices.Contains(fields, in.field) {
			fields = append(fields, in.field)
		}
	}
	out, ok := insert(body, ins)
	if !ok {
		return body, nil
	}
	return out, fields
}

// insert returns body with each of ins written into it, and false, with
// body as it is, when an offset does not point just past an object's
// opening brace.
func insert(body []byte, ins []insertion) ([]byte, bool) {
	slices.SortFunc(ins, func(a, b insertion) int { return a.at - b.at })
	n := len(body)
	for _, in := range ins {
		if in.at <= 0 || in.at > len(body) || body[in.at-1] != '{' {
			return body, false // the offsets do not point where they should: leave it
		}
		n += len(in.text)
	}
	out := make([]byte, 0, n)
	prev := 0
	for _, in := range ins {
		out = append(append(out, body[prev:in.at]...), in.text...)
		prev = in.at
	}
	return append(out, body[prev:]...), true
}

// insertion is text to write into a body at offset at: a member named
// field.
type insertion struct {
	at          int
	text, field string
}

// restoreMessage appends to ins what to give message m (gjson gives its
// offset in the body, and its calls', as Index), which follows the
// messages before digests: the kept extra_content of each of its calls
// that has none, and each message field kept for its turn (see TurnKey)
// that it has none of; none that skip names. c.mu is held.
func (c *CallExtras) restoreMessage(o Origin, m gjson.Result, before *History, skip func(string) bool, ins []insertion) []insertion {
	if !m.IsObject() || m.Get("role").String() != "assistant" {
		return ins
	}
	var keys [3]string // the turn's ids, the surest first
	calls := m.Get("tool_calls")
	if !calls.IsArray() || strings.TrimSpace(calls.Raw[1:len(calls.Raw)-1]) == "" {
		content := m.Get("content").String()
		keys = [...]string{AnswerKey(content, before.All()), AnswerKey(content, before.Last()), TurnKey("", content)}
	} else {
		calls.ForEach(func(i, call gjson.Result) bool {
			id := call.Get("id").String()
			if raw, ok := c.m[o.key(id, ExtraContent)]; ok && raw != "" && call.IsObject() && !call.Get(ExtraContent).Exists() && !skip(ExtraContent) {
				ins = append(ins, member(call.Index, call.Raw, ExtraContent, raw))
			}
			if i.Int() == 0 {
				args := call.Get("function.arguments").String()
				keys = [...]string{ArgsKey(id, args, before.All()), ArgsKey(id, args, before.Last()), TurnKey(id, "")}
			}
			return true
		})
	}
	return giveMessage(m, c.turn(o, keys), skip, ins)
}

// turn returns the message fields kept under the first of keys under
// which any is kept, by the index of messageFields: none if that one is
// shared by turns that differed (see Share). c.mu is held.
func (c *CallExtras) turn(o Origin, keys [3]string) [len(messageFields)]string {
	var give [len(messageFields)]string
	for _, key := range keys {
		found := false
		for i, field := range messageFields {
			raw, ok := c.m[o.key(key, field)]
			give[i], found = raw, found || ok
		}
		if found {
			break
		}
	}
	return give
}

// giveMessage appends to ins the message fields give holds (by the index
// of messageFields) that message m has none of and skip does not name.
func giveMessage(m gjson.Result, give [len(messageFields)]string, skip func(string) bool, ins []insertion) []insertion {
	for i, field := range messageFields {
		if give[i] != "" && !m.Get(field).Exists() && !skip(field) {
			raw := give[i]
			if field == ContentBlocks {
				raw = withText(raw, m.Get("content"))
			}
			ins = append(ins, member(m.Index, m.Raw, field, raw))
		}
	}
	return ins
}

// withText returns blocks, a JSON array of thinking blocks, with the
// text of content, a message's content, after them as text blocks: a
// string's, or each text part's of an array.
func withText(blocks string, content gjson.Result) string {
	var texts []string
	switch {
	case content.Type == gjson.String && content.Str != "":
		texts = append(texts, content.Str)
	case content.IsArray():
		content.ForEach(func(_, p gjson.Result) bool {
			if p.Get("type").String() == "text" && p.Get("text").String() != "" {
				texts = append(texts, p.Get("text").String())
			}
			return true
		})
	}
	if len(texts) == 0 || !strings.HasSuffix(blocks, "]") {
		return blocks
	}
	var b strings.Builder
	b.WriteString(blocks[:len(blocks)-1])
	for _, t := range texts {
		js, _ := json.Marshal(t)
		b.WriteString(`,{"type":"text","text":`)
		b.Write(js)
		b.WriteString("}")
	}
	b.WriteString("]")
	return b.String()
}

// member is the insertion that makes name: raw the first member of the
// object obj, found at offset at.
func member(at int, obj, name, raw string) insertion {
	text := `"` + name + `":` + raw
	if strings.TrimSpace(obj[1:len(obj)-1]) != "" {
		text += ","
	}
	return insertion{at: at + 1, text: text, field: name}
}
