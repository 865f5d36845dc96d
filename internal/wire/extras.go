package wire

import (
	"bytes"
	"encoding/json"
	"sync"
)

// Tool calls' extra content, given back to the server that sent it.
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
// the conversation's second request fails. CallExtras keeps each call's
// extra_content, by server and call id, and Restore writes it back into a
// later request to that server whose assistant message names the call
// without it. A request to any other server is left as it is: another
// vendor may refuse a field it does not know.

// Bounds of what CallExtras keeps: a server sends what it likes, and the
// oldest entries make room for new ones.
const (
	maxExtras      = 1024     // calls kept, all servers together
	maxExtraBytes  = 64 << 10 // one call's extra content; a larger one is not kept
	maxExtrasBytes = 8 << 20  // all of them
)

// CallExtras keeps the extra_content of tool calls, by server
// ("host:port") and call id, within fixed bounds. Its methods are safe for
// concurrent use; the nil CallExtras keeps nothing.
type CallExtras struct {
	mu      sync.Mutex
	m       map[callKey]string
	order   []callKey // oldest first, from head on
	head    int
	bytes   int
	servers map[string]int // calls kept per server
}

type callKey struct{ server, id string }

// Keep keeps raw, the extra_content JSON of call id as server sent it.
// An empty id, an empty or null raw, or one over maxExtraBytes is not kept.
func (c *CallExtras) Keep(server, id, raw string) {
	if c == nil || id == "" || raw == "" || raw == "null" || len(raw) > maxExtraBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m, c.servers = make(map[callKey]string), make(map[string]int)
	}
	k := callKey{server, id}
	if old, ok := c.m[k]; ok {
		c.bytes += len(raw) - len(old)
		c.m[k] = raw
	} else {
		c.m[k] = raw
		c.bytes += len(raw)
		c.servers[server]++
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

// Restore returns body, a chat request to server, with the extra content
// kept for each tool call of its messages that names a kept call of
// server's and has none, and reports whether it changed anything. A body
// it cannot read as a chat request is returned as it is. Every other
// field keeps its value (numbers and strings as written); the keys of the
// objects it rewrites may come in another order.
func (c *CallExtras) Restore(server string, body []byte) ([]byte, bool) {
	if !c.Holds(server) || !bytes.Contains(body, []byte(`"tool_calls"`)) {
		return body, false
	}
	var top map[string]json.RawMessage
	var msgs []map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil || json.Unmarshal(top["messages"], &msgs) != nil {
		return body, false
	}
	changed := false
	for _, m := range msgs {
		var calls []map[string]json.RawMessage
		if m["tool_calls"] == nil || json.Unmarshal(m["tool_calls"], &calls) != nil {
			continue
		}
		if c.restoreCalls(server, calls) {
			raw, err := marshal(calls)
			if err != nil {
				return body, false
			}
			m["tool_calls"], changed = raw, true
		}
	}
	if !changed {
		return body, false
	}
	raw, err := marshal(msgs)
	if err != nil {
		return body, false
	}
	top["messages"] = raw
	if raw, err = marshal(top); err != nil {
		return body, false
	}
	return raw, true
}

// restoreCalls gives each of calls that has no extra_content the one kept
// for its id, and reports whether it gave any.
func (c *CallExtras) restoreCalls(server string, calls []map[string]json.RawMessage) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	gave := false
	for _, call := range calls {
		var id string
		if _, has := call["extra_content"]; has || json.Unmarshal(call["id"], &id) != nil {
			continue
		}
		if raw, ok := c.m[callKey{server, id}]; ok {
			call["extra_content"] = json.RawMessage(raw)
			gave = true
		}
	}
	return gave
}

// marshal is json.Marshal of v without escaping HTML characters: the
// request keeps its strings as they were written.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
