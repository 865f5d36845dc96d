package wire

import (
	"bytes"
	"net/http"
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Tools without a description or parameters.
//
// OpenAI's API makes a function tool's description and parameters
// optional, and openai-go leaves them out when the caller does.
// llama.cpp's server from #11900 (February 2025) to #18478 (January
// 2026) read both as required: a request whose tool lacks either is
// refused with 500, "Failed to parse tools: [json.exception.out_of_range.403]
// key 'description' not found" (ggml-org/llama.cpp#17667;
// nlpodyssey/openai-agents-go#27; lemonade-sdk/lemonade#540, which runs
// that server). openai-go sends it twice more, each refused, and a
// breaker counts the refusals against a server that is well. Such a
// request is sent again at once with what the server's later builds take
// for a missing member (an empty description; parameters that are an
// object without properties, which OpenAI's API takes for no parameters),
// and that server's later requests go so from the start: see
// RefusedFields, where the server is noted as refusing BareTools.

// BareTools names, in RefusedFields, a request's function tools without
// a description or parameters: a server noted as refusing it gets them
// filled in (see FillTools).
const BareTools = "tools without description or parameters"

// noParameters is the parameters of a function without any.
const noParameters = `{"type":"object","properties":{}}`

// RefusedTools returns what res refuses of its request's tools, by the
// server's message, whatever the status (a relay may answer its
// upstream's 500 as 400): BareTools for a function tool without a
// description or parameters (llama.cpp's "key 'description' not found",
// or 'parameters'), StreamedTools for a stream with tools ("Cannot use
// tools with stream"); "" for neither. It reads the body, bounded already
// (BoundErrorBody), and puts it back.
func RefusedTools(res *http.Response) string {
	if res == nil || res.Body == nil || res.StatusCode < 400 {
		return ""
	}
	body, err := ErrorBody(res)
	switch {
	case err != nil:
	case bytes.Contains(body, []byte("Cannot use tools with stream")):
		return StreamedTools
	case bytes.Contains(body, []byte("Failed to parse tools")) &&
		(bytes.Contains(body, []byte(`key 'description' not found`)) || bytes.Contains(body, []byte(`key 'parameters' not found`))):
		return BareTools
	}
	return ""
}

// FillTools returns body, a chat request's JSON, with every function
// tool given an empty description and parameters without properties
// where it has none; body itself when none lacks either.
func FillTools(body []byte) []byte {
	tools := gjson.GetBytes(body, "tools")
	if !tools.IsArray() {
		return body
	}
	out := body
	for i, t := range tools.Array() {
		fn := t.Get("function")
		if !fn.IsObject() {
			continue
		}
		at := "tools." + strconv.Itoa(i) + ".function."
		if !fn.Get("description").Exists() {
			if b, err := sjson.SetBytes(out, at+"description", ""); err == nil {
				out = b
			}
		}
		if !fn.Get("parameters").Exists() {
			if b, err := sjson.SetRawBytes(out, at+"parameters", []byte(noParameters)); err == nil {
				out = b
			}
		}
	}
	return out
}
