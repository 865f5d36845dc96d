package wire

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"net/http"
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Tool call ids of the forms Mistral, Anthropic and Bedrock take.
//
// A call's id only ties an assistant message's tool call to the tool
// message that answers it; OpenAI's API takes any string, and each
// server writes its own: call_ and 24 letters and digits (OpenAI),
// toolu_… (Anthropic), functions.NAME:N (Kimi), call_ and 8 of them
// (Ollama), a UUID. Mistral's models take only 9 letters and digits:
// mistral_common's validator refuses any other id on an assistant's call
// or a tool message, "Tool call id was ID but must be a-z, A-Z, 0-9,
// with a length of 9." (mistral_common protocol/instruct/validator.py,
// _validate_tool_call and _validate_tool_message), which La Plateforme
// answers 400, type invalid_function_call, code "3280"
// (editor-code-assistant/eca#233, mistralai/mistral-vibe#1075,
// nearai/ironclaw#1241), and OpenRouter passes on in metadata.raw; vLLM
// under its Mistral tokenizer keeps an id's last 9 characters
// (vllm/tokenizers/mistral.py, truncate_tool_call_ids), so that the
// validator refuses call_read_file_0 as "ad_file_0" and an id shorter
// than 9 as it is; the chat templates of Mistral 7B v0.3, Nemo and their
// kin raise "Tool call IDs should be alphanumeric strings with length 9!"
// (llama.cpp with --jinja, mlx_lm.server: ml-explore/mlx-lm#1375), and
// vLLM's own Mistral templates "Tool call IDs should be alphanumeric
// strings with length >= 9! (1)ID" for an id shorter than 9, keeping a
// longer one's last 9 characters (vllm examples/
// tool_chat_template_mistral_parallel.jinja; langchain-ai/langchain#29021
// for vLLM's 400 of a template's refusal). A
// conversation another model answered first, as a Router's fallback or
// a caller switching models makes one, is refused at its next turn.
//
// Anthropic and Bedrock take an id of letters, digits, '_' and '-' only:
// Anthropic's Messages API refuses any other, 400 invalid_request_error
// "messages.1.content.1.tool_use.id: String should match pattern
// '^[a-zA-Z0-9_-]+$'", on its OpenAI SDK compatibility endpoint too
// (openai/openai-agents-python#1147), and gateways in front of it pass
// the refusal on (OpenRouter in metadata.raw: tailcallhq/forgecode#1142;
// Bifrost before maximhq/bifrost#5096: #5097); Bedrock's Converse API
// wants a toolUseId of 1 to 64 of them (docs.aws.amazon.com/bedrock/
// latest/APIReference/API_runtime_ToolUseBlock.html) and refuses another
// with a ValidationException, "Value 'ID' at
// 'messages.1.member.content.0.member.toolUse.toolUseId' failed to
// satisfy constraint: Member must …". Kimi's functions.NAME:N, as
// Moonshot, Fireworks, vLLM's and SGLang's Kimi parsers write it, is
// refused so (langchain-ai/langchain#37756, AnswerDotAI/fastllm#42).
//
// A request so refused is sent again at once with each id that is not of
// the form the server takes written as one that is (see WriteCallIDs),
// the same id the same in the assistant's calls and the tool messages,
// and later requests to that server for that model go so from the start
// (see RefusedFields, where the form is noted: see CallIDForm.For). The
// conversation means what it meant: the ids tie the same calls to the
// same answers. The caller's messages and Accumulated() keep their ids;
// a request to a server that takes them is sent as the caller wrote it.

// CallIDForm is a form of tool call id that some servers take alone. The
// zero value, AnyCallID, is OpenAI's: any string.
type CallIDForm uint8

const (
	// AnyCallID is any string, as OpenAI's API takes.
	AnyCallID CallIDForm = iota
	// SafeCallID is 1 to 64 ASCII letters, digits, '_' and '-', the
	// form Anthropic's and Bedrock's APIs take.
	SafeCallID
	// NineCharCallID is 9 ASCII letters and digits, the form Mistral's
	// models take.
	NineCharCallID
)

// For names, in RefusedFields, the tool call ids not of form f that a
// server refused for model: a server noted as refusing them for a
// request's model gets that request's ids written in form f (see
// WriteCallIDs). A gateway's other models keep their ids.
func (f CallIDForm) For(model string) string {
	switch f {
	case NineCharCallID:
		return "tool call ids not of 9 letters and digits, for " + model
	case SafeCallID:
		return "tool call ids not of letters, digits, '_' and '-', for " + model
	}
	return ""
}

// takes reports whether id is of form f.
func (f CallIDForm) takes(id string) bool {
	switch f {
	case NineCharCallID:
		return nineChar(id)
	case SafeCallID:
		return safeChar(id)
	}
	return true
}

// RefusedCallIDs returns the form of tool call id that res, a refusal of
// the request whose body sent gives, asks for: NineCharCallID for
// Mistral's words or a Mistral template's, SafeCallID for Anthropic's or
// Bedrock's (see patternRefused), AnyCallID for any other answer; so that
// the request sent again with its ids written in that form (see
// WriteCallIDs) is what the server takes; whatever the status (a
// template's refusal may come as a 500 or a 404, a relay's as its own).
// The words must be the server's of the request itself, not those of a
// conversation about such a refusal in an error that quotes the request
// (see echoesRequest): Mistral's name the id refused, which must be one
// that WriteCallIDs writes, or its last 9 characters (vLLM's
// truncation); a template's, Anthropic's and Bedrock's name none, and
// need an id of the request to write. A request that holds no id to
// write is not taken as refused so, since it would be sent again the
// same (a Responses request, whose call_id WriteCallIDs does not write).
// It reads the body, bounded already (BoundErrorBody), and puts it back;
// sent is called only for a body with those words, and may give nil.
func RefusedCallIDs(res *http.Response, sent func() []byte) CallIDForm {
	if res == nil || res.Body == nil || res.StatusCode < 400 {
		return AnyCallID
	}
	body, err := ErrorBody(res)
	if err != nil || echoesRequest(body) {
		return AnyCallID
	}
	named := namedIDs(body)
	template := bytes.Contains(body, []byte("Tool call IDs should be alphanumeric strings with length "))
	pattern := patternRefused(body)
	if len(named) == 0 && !template && !pattern {
		return AnyCallID
	}
	sites := callIDSites(sent())
	if pattern && !template && len(named) == 0 {
		for _, s := range sites {
			if !safeChar(s.id) {
				return SafeCallID
			}
		}
		return AnyCallID
	}
	written := make(map[string]bool) // the ids WriteCallIDs writes, and their last 9 characters
	for _, s := range sites {
		if !nineChar(s.id) {
			written[s.id] = true
			if len(s.id) > 9 {
				written[s.id[len(s.id)-9:]] = true
			}
		}
	}
	if template && len(written) > 0 {
		return NineCharCallID
	}
	for _, id := range named {
		if written[id] {
			return NineCharCallID
		}
	}
	return AnyCallID
}

// patternRefused reports whether body, an error answer, refuses a tool
// call id for not being of SafeCallID's form: in Anthropic's words, of a
// tool_use block's id or a tool_result block's tool_use_id, or Bedrock's,
// of a toolUse's or a toolResult's toolUseId (its pattern or its length).
// A quote may come escaped: a LiteLLM proxy that writes its upstream's
// body as Python's bytes, b'…', gives each ' as \' (and, in its own
// JSON, as \\'): "pattern \\'^[a-zA-Z0-9_-]+$\\'" (openai/openai-agents-python#1147).
func patternRefused(body []byte) bool {
	const anthropic = ": String should match pattern '^[a-zA-Z0-9_-]+$'"
	body = bytes.ReplaceAll(bytes.ReplaceAll(body, []byte(`\\'`), []byte("'")), []byte(`\'`), []byte("'"))
	for _, w := range []string{"tool_use.id" + anthropic, "tool_use_id" + anthropic, "toolUseId' failed to satisfy constraint: Member must"} {
		if bytes.Contains(body, []byte(w)) {
			return true
		}
	}
	return false
}

// namedIDs returns the ids body, an error answer, names in Mistral's
// words: "Tool call id was ID but must be a-z, A-Z, 0-9, with a length of
// 9." (mistral_common's validator), each time it says them.
func namedIDs(body []byte) []string {
	const before, after = "Tool call id was ", " but must be a-z, A-Z, 0-9, with a length of 9"
	var ids []string
	for rest := body; ; {
		i := bytes.Index(rest, []byte(before))
		if i < 0 {
			return ids
		}
		rest = rest[i+len(before):]
		j := bytes.Index(rest, []byte(after))
		if j < 0 {
			return ids
		}
		ids = append(ids, string(rest[:j]))
		rest = rest[j:]
	}
}

// callIDSite is where a chat request names a tool call id: an assistant
// message's call or a tool message, at path.
type callIDSite struct{ path, id string }

// callIDSites returns the tool call ids body, a chat request's JSON,
// names, in order: each assistant message's calls' ids and each tool
// message's tool_call_id.
func callIDSites(body []byte) []callIDSite {
	var sites []callIDSite
	gjson.GetBytes(body, "messages").ForEach(func(i, m gjson.Result) bool {
		at := "messages." + i.String() + "."
		if id := m.Get("tool_call_id"); id.Type == gjson.String {
			sites = append(sites, callIDSite{at + "tool_call_id", id.Str})
		}
		m.Get("tool_calls").ForEach(func(j, call gjson.Result) bool {
			if id := call.Get("id"); id.Type == gjson.String {
				sites = append(sites, callIDSite{at + "tool_calls." + j.String() + ".id", id.Str})
			}
			return true
		})
		return true
	})
	return sites
}

// WriteCallIDs returns body, a chat request's JSON, with every tool call
// id of its assistant messages' calls and every tool message's
// tool_call_id that is not of form f, the empty one among them (TGI's
// streamed calls carry no id), written as one that is: 9 letters and
// digits, which every form takes; the same id as the same one, two ids
// as two, whatever else the request holds, and the same in every
// request, so that a server's cache of a conversation's prompt still
// holds its earlier turns. body itself when every id is of that form
// already, or when it is not a chat request.
func WriteCallIDs(body []byte, f CallIDForm) []byte {
	if f == AnyCallID {
		return body
	}
	sites := callIDSites(body)
	taken := make(map[string]bool) // the ids of the request, and those written
	for _, s := range sites {
		taken[s.id] = true
	}
	written := make(map[string]string)
	out := body
	for _, s := range sites {
		if f.takes(s.id) {
			continue
		}
		id, ok := written[s.id]
		if !ok {
			id = nineCharOf(s.id, taken)
			written[s.id], taken[id] = id, true
		}
		if b, err := sjson.SetBytes(out, s.path, id); err == nil {
			out = b
		}
	}
	return out
}

// safeChar reports whether id is 1 to 64 ASCII letters, digits, '_' and
// '-'.
func safeChar(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for _, c := range []byte(id) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// nineChar reports whether id is 9 letters and digits of ASCII.
func nineChar(id string) bool {
	if len(id) != 9 {
		return false
	}
	for _, c := range []byte(id) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// base62 are the letters and digits an id of 9 is written in.
const base62 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// nineCharOf returns the id of 9 letters and digits that id is written
// as: a digest of it, the first that taken does not hold.
func nineCharOf(id string, taken map[string]bool) string {
	for n := 0; ; n++ {
		in := id
		if n > 0 {
			in += "\x00" + strconv.Itoa(n)
		}
		sum := sha256.Sum256([]byte(in))
		v := binary.BigEndian.Uint64(sum[:8])
		var b [9]byte
		for i := range b {
			b[i] = base62[v%62]
			v /= 62
		}
		if out := string(b[:]); !taken[out] {
			return out
		}
	}
}
