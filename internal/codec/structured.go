package codec

import (
	"encoding/json"

	"github.com/tidwall/gjson"
)

// Structured reports whether r asks for a structured answer: a chat
// request's response_format, or a Responses request's text.format, of
// type json_schema or json_object, or a constraint set as an extra field
// of its parameters (see Constrained). A server constrains such an
// answer to a JSON object (or the grammar's form) from its first token
// (OpenAI's Structured Outputs, vLLM's and llama.cpp's grammars),
// whatever messages come before it: a continuation, sent the output so
// far as an assistant message (or after the prompt), answers a new
// object, which after the caller's half of one is no JSON at all. So
// such an answer is restarted, never continued.
func Structured(r Request) bool {
	switch r := r.(type) {
	case chat:
		f := r.p.ResponseFormat
		return f.OfJSONSchema != nil || f.OfJSONObject != nil || constrainedExtras(r.p.ExtraFields())
	case response:
		f := r.p.Text.Format
		return f.OfJSONSchema != nil || f.OfJSONObject != nil || constrainedExtras(r.p.ExtraFields())
	case completion:
		return constrainedExtras(r.p.ExtraFields())
	}
	return false
}

// constrainedExtras reports whether extra, the extra fields of a
// request's parameters (param.SetExtraFields), constrain its answer's
// form (see Constrained).
func constrainedExtras(extra map[string]any) bool {
	if len(extra) == 0 {
		return false
	}
	b, err := json.Marshal(extra)
	return err == nil && Constrained(b)
}

// Constrained reports whether body, a request's JSON as sent, asks the
// server to constrain its answer's form, in a member openai-go's typed
// parameters may not show (set with param.SetExtraFields,
// option.WithJSONSet or a middleware):
//
//   - vLLM's guided_json, guided_regex, guided_grammar and guided_choice
//     (removed in its v0.12.0) and structured_outputs with any of json,
//     regex, choice, grammar, json_object or structural_tag: its
//     "Structured Outputs" documentation lists them as the extra
//     parameters of its Completions and Chat API;
//   - NVIDIA NIM's guided_json, guided_regex, guided_choice and
//     guided_grammar inside its "nvext" extension of the OpenAI request
//     (docs.nvidia.com/nim/large-language-models/1.5.0,
//     structured-generation; later NIMs read vLLM's own at the top);
//   - llama.cpp's json_schema and grammar: its server's README lists
//     them among the options of grammar-based sampling;
//   - SGLang's regex and ebnf, beside json_schema, the extra parameters
//     of its Completions and Chat requests (python/sglang/srt/entrypoints/openai/protocol.py:
//     CompletionRequest, ChatCompletionRequest.to_sampling_params);
//   - response_format of type json_schema or json_object, or of a type
//     another server constrains with: structural_tag (SGLang's
//     StructuralTagResponseFormat, vLLM's), json and regex (TGI's
//     GrammarType, its value the schema or the pattern), and grammar
//     (Fireworks' grammar mode, its GBNF in "grammar":
//     docs.fireworks.ai, structured-responses/structured-output-grammar-based);
//     and a Responses request's text.format of type json_schema or
//     json_object.
//
// A null member, or an empty string, constrains nothing. A constraint a
// server applies on its own (a model's configuration, a gateway's
// default) is not in the request and cannot be seen.
func Constrained(body []byte) bool {
	found := false
	gjson.ParseBytes(body).ForEach(func(key, v gjson.Result) bool {
		found = constrains(key.Str, v)
		return !found
	})
	return found
}

// constrains reports whether the top-level member key, of value v,
// constrains the answer's form (see Constrained).
func constrains(key string, v gjson.Result) bool {
	if v.Type == gjson.Null || (v.Type == gjson.String && v.Str == "") {
		return false
	}
	switch key {
	case "guided_json", "guided_regex", "guided_grammar", "guided_choice", "json_schema", "grammar", "regex", "ebnf":
		return true
	case "nvext":
		for _, m := range []string{"guided_json", "guided_regex", "guided_choice", "guided_grammar"} {
			if constrains(m, v.Get(m)) {
				return true
			}
		}
		return false
	case "structured_outputs":
		for _, m := range []string{"json", "regex", "choice", "grammar", "structural_tag"} {
			if f := v.Get(m); f.Exists() && f.Type != gjson.Null {
				return true
			}
		}
		return v.Get("json_object").Bool()
	case "response_format":
		return constrainingFormat(v.Get("type").Str)
	case "text":
		return jsonFormat(v.Get("format.type").Str)
	}
	return false
}

// jsonFormat reports whether a response format of type typ constrains
// the answer to JSON.
func jsonFormat(typ string) bool { return typ == "json_schema" || typ == "json_object" }

// constrainingFormat reports whether a chat or completions request's
// response_format of type typ constrains the answer's form: JSON's types
// (see jsonFormat), and those of SGLang, vLLM, TGI and Fireworks (see
// Constrained).
func constrainingFormat(typ string) bool {
	switch typ {
	case "structural_tag", "json", "regex", "grammar":
		return true
	}
	return jsonFormat(typ)
}
