package wire

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
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
//
// The items that followed a reasoning item taken out go without their
// ids: OpenAI and Azure OpenAI pair an answer's function call and message,
// given by their ids, with the reasoning item they followed, and refuse
// the request without it, 400 "Item 'fc_…' of type 'function_call' was
// provided without its required 'reasoning' item: 'rs_…'"
// (mastra-ai/mastra#8738, continuedev/continue#11309 for a message on
// Azure); a call without its id is paired with its output by call_id
// (laravel/ai#1052; earendil-works/pi drops it for another model's
// calls), and Codex gives back no item's id at all. A message keeps its
// id elsewhere: vLLM reads an output message's id as required.

// maxReasoningItems bounds the items ReasoningItems keeps, oldest
// forgotten first.
const maxReasoningItems = 4096

// maxItemID is the longest item id kept as it is: OpenAI's are 53 bytes
// and it takes none over 64.
const maxItemID = 64

// Sealer names the deployment that made a reasoning item, and the one a
// request goes to: its server ("host:port"), the model the request asked
// for there, and its account (see Account); see SealerOf.
type Sealer struct{ Server, Model, Account string }

// SealerOf returns the deployment that seals the reasoning items of a
// request to server for model on account. Azure OpenAI seals them with
// the resource, its host: any deployment and key of it opens them
// (BerriAI/litellm#27703, two deployments on one resource), and a key that
// is an Entra ID token changes every hour. OpenAI seals them with the
// organization, its key, not the model (BerriAI/litellm#21994): a caller
// switching models keeps them. Elsewhere the model counts too: a gateway's
// model names may stand for deployments of different accounts (LiteLLM's
// model groups), and Bedrock's OpenAI models refuse another model's
// items on one account ("encrypted reasoning was created for a different
// account or model", BerriAI/litellm#41793).
func SealerOf(server, model, account string) Sealer {
	switch h := hostname(server); {
	case azureOpenAI(h):
		return Sealer{Server: server}
	case h == "api.openai.com":
		return Sealer{Server: server, Account: account}
	}
	return Sealer{Server: server, Model: model, Account: account}
}

// azureOpenAI reports whether h, a host name, is an Azure OpenAI
// resource's.
func azureOpenAI(h string) bool {
	return strings.HasSuffix(h, ".openai.azure.com") || strings.HasSuffix(h, ".cognitiveservices.azure.com") ||
		strings.HasSuffix(h, ".services.ai.azure.com")
}

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
// content is sealed: "id:" and its id (a digest of it past maxItemID
// bytes), "enc:" and a digest of its content; none for what is empty. A
// key is at most 68 bytes, whatever a server sends.
func itemKeys(id, sealed string) []string {
	var keys []string
	switch {
	case len(id) > maxItemID:
		sum := sha256.Sum256([]byte(id))
		keys = append(keys, "idsum:"+hex.EncodeToString(sum[:12]))
	case id != "":
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
// out; the items that followed one taken out go without their ids (see
// followerID). Every other byte of the body stays as it was; a body with
// none, or that it cannot read as a Responses request, is returned as it
// is.
func (r *ReasoningItems) Foreign(to Sealer, body []byte) ([]byte, int) {
	if !r.Holds() || !bytes.Contains(body, []byte(`"reasoning"`)) {
		return body, 0
	}
	input := gjson.GetBytes(body, "input")
	if !input.IsArray() {
		return body, 0
	}
	h := hostname(to.Server)
	messages := h == "api.openai.com" || azureOpenAI(h)
	var kept [][]byte
	dropped, after := 0, false // after: the items so far follow a reasoning item taken out
	r.mu.Lock()
	input.ForEach(func(_, m gjson.Result) bool {
		raw := []byte(m.Raw)
		switch typ := m.Get("type").String(); {
		case typ == "reasoning":
			if by, ok := r.maker(m); ok && by != to {
				dropped++
				after = true
				return true
			}
			after = false
		case !followerID(typ, m.Get("role").String(), messages):
			after = false
		case after && m.Get("id").Exists():
			raw, _ = sjson.DeleteBytes(raw, "id")
		}
		kept = append(kept, raw)
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

// followerID reports whether an input item of typ and role is an item of
// an answer that may follow its reasoning item there and goes without its
// id when that reasoning item is taken out: a function or custom tool's
// call, and, where messages, the answer's message.
func followerID(typ, role string, messages bool) bool {
	switch typ {
	case "function_call", "custom_tool_call":
		return true
	case "message":
		return role == "assistant" && messages
	}
	return false
}
