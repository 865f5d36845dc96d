package wire

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"sync"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Reasoning items of the Responses API given back to a deployment that
// did not make them.
//
// A Responses caller that does not chain by previous_response_id gives
// the next turn the previous response's output items in its input. With
// store false and include ["reasoning.encrypted_content"] a reasoning
// item carries its reasoning sealed in encrypted_content, which only the
// deployment that sealed it can open: the same Azure OpenAI resource or
// OpenAI organization, its base URL and key (BerriAI/litellm#27702 and
// #27703: an item of account B sent to account A). Any other refuses the
// whole request, 400 invalid_encrypted_content, "The encrypted content
// for item rs_… could not be verified" (openai/codex#3573: an Azure
// resource failed over to another mid-conversation; lidge-jun/opencodex#5583).
// A reasoning item given by its id alone is looked up in the store of the
// deployment it goes to, which another's item is not in: 404 "Item with
// id 'rs_…' not found. Items are not persisted when `store` is set to
// false. … or remove this item from your input"
// (openai/openai-agents-python#919). A Router whose routes are two such
// deployments, or a caller who switches models, sends one the other's
// items as soon as a turn goes elsewhere than the last.
//
// The item may go: a reasoning model reasons afresh each turn, and
// OpenAI drops the reasoning items of earlier turns from the model's
// context itself (OpenHands/software-agent-sdk#2178 drops them all under
// store false). ReasoningItems keeps who made each reasoning item the
// client read, by its id and by a digest of its encrypted content, and
// Foreign takes out of a request's input the reasoning items another
// deployment made. An item it never saw (the caller's from elsewhere), and
// every item the request's own deployment made, stays.

// maxReasoningItems bounds the items ReasoningItems keeps, oldest
// forgotten first.
const maxReasoningItems = 4096

// Sealer names the deployment that made a reasoning item, and the one a
// request goes to: its server ("host:port"), the model the request asked
// for there (a gateway's model names may stand for deployments of
// different accounts: LiteLLM's model groups), and its account (see
// Account).
type Sealer struct{ Server, Model, Account string }

// Account returns a digest of the credentials h carries (Authorization,
// or Azure's api-key), which tells two accounts on one server apart: the
// credentials themselves are never kept.
func Account(h http.Header) string {
	cred := h.Get("Authorization")
	if cred == "" {
		cred = h.Get("Api-Key")
	}
	if cred == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(cred))
	return hex.EncodeToString(sum[:8])
}

// ReasoningItems keeps the deployment that made each Responses reasoning
// item the client read, within maxReasoningItems. Its methods are safe
// for concurrent use; the nil ReasoningItems keeps nothing.
type ReasoningItems struct {
	mu    sync.Mutex
	by    map[string]Sealer // item key → its maker; the zero Sealer: made by two
	order []string          // oldest first, from head on
	head  int
}

// itemKeys returns the keys of a reasoning item of id whose encrypted
// content is sealed: "id:" and its id, "enc:" and a digest of its
// content; none for what is empty.
func itemKeys(id, sealed string) []string {
	var keys []string
	if id != "" {
		keys = append(keys, "id:"+id)
	}
	if sealed != "" {
		sum := sha256.Sum256([]byte(sealed))
		keys = append(keys, "enc:"+hex.EncodeToString(sum[:12]))
	}
	return keys
}

// Keep notes that by made the reasoning item id, whose encrypted content
// is sealed (either may be empty). An id or content another deployment
// made too names neither from then on, while it is kept.
func (r *ReasoningItems) Keep(by Sealer, id, sealed string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.by == nil {
		r.by = make(map[string]Sealer)
	}
	for _, k := range itemKeys(id, sealed) {
		old, ok := r.by[k]
		switch {
		case !ok:
			r.by[k] = by
			r.order = append(r.order, k)
		case old != by:
			r.by[k] = Sealer{}
		}
	}
	for len(r.by) > maxReasoningItems {
		delete(r.by, r.order[r.head])
		r.order[r.head] = ""
		r.head++
		if r.head > len(r.order)/2 {
			r.order = append(r.order[:0], r.order[r.head:]...)
			r.head = 0
		}
	}
}

// Holds reports whether any item is kept: only then can Foreign change a
// request.
func (r *ReasoningItems) Holds() bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.by) > 0
}

// maker returns who made the reasoning item m, an input item: its id's
// maker, else its encrypted content's; ok false when neither is known,
// or two made it.
func (r *ReasoningItems) maker(m gjson.Result) (by Sealer, ok bool) {
	for _, k := range itemKeys(m.Get("id").String(), m.Get("encrypted_content").String()) {
		if by, ok = r.by[k]; ok {
			return by, by != Sealer{}
		}
	}
	return Sealer{}, false
}

// Foreign returns body, a Responses request to to, without the reasoning
// items of its input that another deployment made, and how many it took
// out. Every other byte of the body stays as it was; a body with none, or
// that it cannot read as a Responses request, is returned as it is.
func (r *ReasoningItems) Foreign(to Sealer, body []byte) ([]byte, int) {
	if !r.Holds() || !bytes.Contains(body, []byte(`"reasoning"`)) {
		return body, 0
	}
	input := gjson.GetBytes(body, "input")
	if !input.IsArray() {
		return body, 0
	}
	var kept [][]byte
	dropped := 0
	r.mu.Lock()
	input.ForEach(func(_, m gjson.Result) bool {
		if m.Get("type").String() == "reasoning" {
			if by, ok := r.maker(m); ok && by != to {
				dropped++
				return true
			}
		}
		kept = append(kept, []byte(m.Raw))
		return true
	})
	r.mu.Unlock()
	if dropped == 0 {
		return body, 0
	}
	raw := append(append([]byte{'['}, bytes.Join(kept, []byte{','})...), ']')
	out, err := sjson.SetRawBytes(body, "input", raw)
	if err != nil {
		return body, 0
	}
	return out, dropped
}
