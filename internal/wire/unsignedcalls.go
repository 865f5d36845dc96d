package wire

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"
)

// Function calls that no Gemini model of the request signed.
//
// Gemini 3 checks the thought signature of the first function call of
// each step of the current turn, the messages after the last user
// message, and refuses a request whose call has none: 400 "Function call
// is missing a thought_signature in functionCall parts"; it checks no
// earlier turn (ai.google.dev/gemini-api/docs/thought-signatures). What a
// model signed goes back to that model alone (see Origin), so a call
// another model made reaches Gemini 3 without a signature: a Router's
// fallback from gemini-3-pro to gemini-3-flash or from a Claude route to
// a Gemini one, a caller switching models between turns, a history
// another provider made. For such calls Google documents a sentinel in
// place of the signature, which skips the check; SDKs and agents put it
// on calls no signature came with (docker/docker-agent#2155,
// vercel/ai#15550, jeremychone/rust-genai#115), on the OpenAI-compatible
// endpoint in the call's extra_content.google.thought_signature, as the
// signature itself comes; OpenRouter takes it as a reasoning.encrypted
// entry of the message's reasoning_details naming the call
// (RooCodeInc/Roo-Code src/api/providers/openrouter.ts at 003d9d4).
// LiteLLM gives it itself to a Gemini 3 call without a signature
// (BerriAI/litellm factory.py, _get_thought_signature_from_tool), so the
// client gives none there.

// SkipSignature is Google's sentinel for a function call whose signature
// the model did not make: Gemini 3 skips its check.
const SkipSignature = "skip_thought_signature_validator"

// SkipRefusal names, among the fields the client added to a request (see
// RefusedField), the sentinel given in field: a refusal that names field
// is then learnt as the sentinel's alone, and the server keeps getting
// back in field what it sent. A server whose schema knows the field but
// not the sentinel's place in it (Google's APIs answer 400 "Invalid JSON
// payload received. Unknown name … Cannot find field." for a member they
// do not know) would otherwise be learnt as refusing the field, and no
// signature of its own would go back to it from then on.
func SkipRefusal(field string) string { return field + "=" + SkipSignature }

// SkipField returns the field in which a chat request to model at server
// ("host:port") takes SkipSignature for a call no model signed:
// ExtraContent on the Gemini API's and Vertex AI's OpenAI-compatible
// endpoints, and on a server that signs calls in that field (signs: see
// CallExtras.Signs); ReasoningDetails on OpenRouter; each for a Gemini 3
// or later model only. It returns "" for any other model or server.
func SkipField(server, model string, signs bool) string {
	if !gemini3(model) {
		return ""
	}
	h := strings.ToLower(server)
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.Contains(h[i:], "]") {
		h = h[:i]
	}
	switch {
	case h == "openrouter.ai":
		return ReasoningDetails
	case signs, h == "generativelanguage.googleapis.com", h == "aiplatform.googleapis.com", strings.HasSuffix(h, "-aiplatform.googleapis.com"):
		return ExtraContent
	}
	return ""
}

// gemini3 reports whether model names Gemini 3 or a later Gemini, with
// or without a provider's prefix: gemini-3-flash-preview,
// google/gemini-3.1-pro-preview. Gemini 2.5 does not refuse a call
// without a signature.
func gemini3(model string) bool {
	m := strings.ToLower(model[strings.LastIndexByte(model, '/')+1:])
	rest, ok := strings.CutPrefix(m, "gemini-")
	if !ok {
		return false
	}
	major := 0
	i := 0
	for ; i < len(rest) && i < 4 && rest[i] >= '0' && rest[i] <= '9'; i++ {
		major = major*10 + int(rest[i]-'0')
	}
	return i > 0 && major >= 3
}

// SkipUnsigned returns body, a chat request, with SkipSignature given in
// field (see SkipField) to each assistant message of the current turn
// (after the last user message) whose tool calls carry no signature:
// none of its calls has extra_content, or, for ReasoningDetails, the
// message has no reasoning_details. It goes on the message's first call,
// as Gemini signs the first of parallel calls. It reports whether it gave
// any; a body it cannot read as a chat request is returned as it is.
func SkipUnsigned(body []byte, field string) ([]byte, bool) {
	if field == "" || !bytes.Contains(body, []byte(`"tool_calls"`)) {
		return body, false
	}
	msgs := gjson.GetBytes(body, "messages")
	if !msgs.IsArray() || msgs.Index <= 0 {
		return body, false
	}
	var turn []gjson.Result // the messages after the last user message
	msgs.ForEach(func(_, m gjson.Result) bool {
		if m.Get("role").String() == "user" {
			turn = turn[:0]
		} else {
			turn = append(turn, m)
		}
		return true
	})
	var ins []insertion
	for _, m := range turn {
		calls := m.Get("tool_calls")
		first := calls.Get("0")
		if !m.IsObject() || m.Get("role").String() != "assistant" || !first.IsObject() {
			continue
		}
		switch field {
		case ExtraContent:
			signed := false
			calls.ForEach(func(_, c gjson.Result) bool {
				signed = c.Get(ExtraContent).Exists()
				return !signed
			})
			if !signed {
				ins = append(ins, member(first.Index, first.Raw, ExtraContent, `{"google":{"thought_signature":"`+SkipSignature+`"}}`))
			}
		case ReasoningDetails:
			if !m.Get(ReasoningDetails).Exists() {
				id, _ := json.Marshal(first.Get("id").String())
				ins = append(ins, member(m.Index, m.Raw, ReasoningDetails,
					`[{"type":"reasoning.encrypted","data":"`+SkipSignature+`","id":`+string(id)+`,"format":"google-gemini-v1","index":0}]`))
			}
		}
	}
	if len(ins) == 0 {
		return body, false
	}
	return insert(body, ins)
}
