package wire

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// The ids under which CallExtras keeps what an assistant turn carried.
//
// A call id alone does not name one turn: Kimi's ids are
// functions.NAME:N, N counting the conversation's earlier calls
// (vllm-project/vllm vllm/entrypoints/chat_utils.py, make_tool_call_id;
// SGLang and LightLLM alike), so the first call to a function has the
// same id in every conversation; nor do a turn's words alone ("Hello!").
// A turn is kept under three ids: its call (or content) with its
// arguments and the whole conversation before it, which only a turn of
// the same inputs shares (a turn generated again: the latest is kept);
// the same with the message it answered alone, for a caller that trims
// the conversation's older messages; and its call id (or content) alone,
// for a caller that edits the message. The last two are kept with Share:
// once two turns have differed under one, it names neither, and Restore
// gives nothing rather than another conversation's reasoning.

// contentSeed seeds the keys' hashes: the keys live as long as the
// process.
var contentSeed = maphash.MakeSeed()

// TurnKey returns the id under which CallExtras keeps what an assistant
// turn's message carried, whatever came before it: its first tool call's
// id, or, for a turn that made no call, a key of its content, spaces
// around it aside (DeepSeek V4's thinking mode wants the
// reasoning_content of every turn back); "" for a turn with neither, and
// for a call id of Kimi's, which every conversation repeats: Share's mark
// of an id two turns shared is dropped with the oldest entries, and a
// later conversation's turn would then answer for a turn whose own
// entries were dropped.
func TurnKey(call, content string) string {
	content = strings.TrimSpace(content)
	switch {
	case kimiID(call):
		return ""
	case call != "":
		return call
	case content == "":
		return ""
	}
	return "content:" + strconv.FormatUint(maphash.String(contentSeed, content), 36)
}

// kimiID reports whether id has the form of Kimi's call ids,
// functions.NAME:N, N counting the conversation's earlier calls
// (vllm-project/vllm vllm/entrypoints/chat_utils.py, make_tool_call_id;
// MoonshotAI/Kimi-K2 docs/tool_call_guidance.md).
func kimiID(id string) bool {
	rest, ok := strings.CutPrefix(id, "functions.")
	i := strings.LastIndexByte(rest, ':')
	if !ok || i <= 0 || i == len(rest)-1 {
		return false
	}
	for _, r := range rest[i+1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// ArgsKey returns an id under which CallExtras keeps what an assistant
// turn that made calls carried: its first call's id with a digest of that
// call's arguments, read as JSON (their spacing, escapes and the order of
// their keys aside: a caller may write them again as it parsed them), and
// before, a digest of the conversation before the turn (see History);
// "" for a turn without a call.
func ArgsKey(call, args, before string) string {
	if call == "" {
		return ""
	}
	return call + "\x00args:" + strconv.FormatUint(maphash.String(contentSeed, canonicalJSON(args)), 36) + before
}

// AnswerKey returns an id under which CallExtras keeps what an assistant
// turn that made no call carried: a digest of its content, spaces around
// it aside, with before, a digest of the conversation before the turn
// (see History); "" for a turn without content.
func AnswerKey(content, before string) string {
	content = strings.TrimSpace(content)
	if content == "" {
		return ""
	}
	return "answer:" + strconv.FormatUint(maphash.String(contentSeed, content), 36) + before
}

// History digests the messages of a chat request before an assistant
// turn, each by its role and content (a string's text, else the JSON of
// its parts), as Restore reads them in a body and HistoryOf in the
// messages a turn answered: what else the caller writes on a message (the
// reasoning given back, a name) does not change it. The zero History is
// the empty conversation.
type History struct {
	all  maphash.Hash
	last uint64
	seen bool
}

// HistoryOf returns the History of msgs, a JSON array of messages (see
// codec.History).
func HistoryOf(msgs []byte) *History {
	h := new(History)
	gjson.ParseBytes(msgs).ForEach(func(_, m gjson.Result) bool {
		h.Add(m)
		return true
	})
	return h
}

// Add adds message m, the next of the conversation.
func (h *History) Add(m gjson.Result) {
	if !h.seen {
		h.all.SetSeed(contentSeed)
		h.seen = true
	}
	role, content := m.Get("role").String(), m.Get("content").String()
	var one maphash.Hash
	one.SetSeed(contentSeed)
	for _, w := range []*maphash.Hash{&h.all, &one} {
		_, _ = w.WriteString(role)
		_ = w.WriteByte(0)
		_, _ = w.WriteString(content)
		_ = w.WriteByte(0)
	}
	h.last = one.Sum64()
}

// All returns the digest of the whole conversation so far, for ArgsKey
// and AnswerKey.
func (h *History) All() string {
	if !h.seen {
		return "\x00all:"
	}
	return "\x00all:" + strconv.FormatUint(h.all.Sum64(), 36)
}

// Last returns the digest of the conversation's latest message alone, for
// ArgsKey and AnswerKey.
func (h *History) Last() string {
	return "\x00last:" + strconv.FormatUint(h.last, 36)
}

// canonicalJSON returns s, a JSON value, written without spaces, its
// strings without escapes they need not have and its objects' keys in
// order; s itself when it is not one.
func canonicalJSON(s string) string {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || d.More() {
		return s
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return s
	}
	return strings.TrimSuffix(b.String(), "\n")
}
