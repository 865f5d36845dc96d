package wire

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
)

// Fill-in-the-middle on SGLang.
//
// SGLang's /v1/completions frames a suffix with the model's
// fill-in-the-middle tokens only when the server was started with
// --completion-template (sgl-project/sglang
// python/sglang/srt/entrypoints/openai/serving_completions.py,
// _convert_to_internal_request; python/sglang/srt/parser/
// code_completion_parser.py); started without one, it drops the suffix and
// answers 200 with a completion of the prompt alone. It picks no template
// by itself from the model's name (TemplateManager.initialize_templates
// loads one only when asked; the chat template alone is guessed). Nothing
// in an answer says which it did. Its answers have a shape of their own
// (see SGLangAnswer), and its /server_info (/get_server_info in its older
// builds, and still, deprecated) gives its server's arguments,
// completion_template among them, null when none was given. The client
// looks there, once a minute for a server (see SGLangServers), only when
// an answer to a request with a suffix has SGLang's shape.

// SGLang names SGLang in the refusal of a suffix it dropped.
const SGLang = "SGLang"

// SGLangAnswer reports whether start, the start of a 2xx answer to a
// completions request or one of its stream's events, has SGLang's shape: a
// text completion whose choice carries matched_stop, which SGLang's
// completion choices, whole and streamed, always hold (null when no stop
// string matched; protocol.py, CompletionResponseChoice and
// CompletionResponseStreamChoice). Other servers name no such member
// (vLLM's is stop_reason).
func SGLangAnswer(start []byte) bool {
	return bytes.Contains(start, []byte(`"matched_stop":`)) && textCompletion.Match(start)
}

// Template is what a server's /server_info says of its completion
// template.
type Template int8

const (
	// TemplateUnknown: the server did not say (not SGLang's answer, an
	// error, no answer in time). Nothing is refused on it.
	TemplateUnknown Template = iota
	// TemplateSet: started with --completion-template; a suffix is used.
	TemplateSet
	// TemplateMissing: started without one; a suffix is dropped.
	TemplateMissing
)

// ServerInfoTemplate reads body, an answer of SGLang's /server_info, and
// returns what it says of the completion template: TemplateMissing for a
// completion_template that is null, TemplateSet for one that names a
// template, TemplateUnknown for any other body, one without SGLang's
// model_path beside it included.
func ServerInfoTemplate(body []byte) Template {
	var info struct {
		ModelPath *string         `json:"model_path"`
		Template  json.RawMessage `json:"completion_template"`
	}
	if json.Unmarshal(body, &info) != nil || info.ModelPath == nil {
		return TemplateUnknown
	}
	var name string
	switch {
	case string(info.Template) == "null":
		return TemplateMissing
	case json.Unmarshal(info.Template, &name) == nil && name != "":
		return TemplateSet
	}
	return TemplateUnknown
}

// SGLangServers is the set of what servers' /server_info said of their
// completion template, each for SGLangInfoFor after it said it. Its
// methods are safe for concurrent use; the nil set asks nothing and knows
// nothing.
type SGLangServers struct {
	looks serverLooks[Template]
}

// SGLangInfoFor is how long what a server said of its template holds:
// it changes only when the server is started again, which takes a
// model's loading, tens of seconds at least.
const SGLangInfoFor = lookFor

// sglangInfoPaths are where SGLang answers with its server's information,
// the newer path first.
var sglangInfoPaths = []string{"/server_info", "/get_server_info"}

// Template returns what the server of req, a completions request, says of
// its completion template: what it said within SGLangInfoFor, or what it
// says now at its /server_info (then /get_server_info, where the first is
// not found), asked with req's headers (its credentials) through send.
// A look that fails, or says nothing, is TemplateUnknown, and is
// remembered as such. One look at a time goes to a server: the calls that
// come meanwhile wait for it. A call whose context ends first returns
// TemplateUnknown; the look goes on (see serverLooks.get).
func (s *SGLangServers) Template(req *http.Request, send func(*http.Request) (*http.Response, error)) Template {
	if s == nil {
		return TemplateUnknown
	}
	return s.looks.get(req, func(root url.URL, header http.Header) Template {
		return askTemplate(root, header, send)
	})
}

// askTemplate asks the server at root, a URL without query, at its info
// paths (see SGLangServers.Template), with header, within lookWait.
func askTemplate(root url.URL, header http.Header, send func(*http.Request) (*http.Response, error)) Template {
	body := lookAt(root, header, sglangInfoPaths, send)
	if body == nil {
		return TemplateUnknown
	}
	return ServerInfoTemplate(body)
}
