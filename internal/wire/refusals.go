package wire

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tidwall/sjson"
)

// Fields a server refused.
//
// The client adds to some requests what the caller did not write: it
// asks a stream for its usage (stream_options.include_usage) unless the
// caller's request says otherwise, and gives back to a server what it
// sent with a tool call's turn (see CallExtras). Some servers refuse such
// a field and the whole request with it, where bare openai-go, which
// sends no such field, gets its answer: Azure OpenAI before API version
// 2024-10-21 answers 400, "Unrecognized request argument supplied:
// stream_options" or "Unknown parameter: 'stream_options'."
// (MicrosoftDocs/azure-docs#123088, songquanpeng/one-api#1423,
// jamesrochabrun/SwiftOpenAI#67); so do gateways relaying to such an
// upstream (QuantumNous/new-api#418), and servers whose request schema
// forbids unknown fields answer 422. A request refused for a field the
// client added is sent again at once without it, and later requests to
// that server go without it: a stream then reports no usage, and Timing
// counts its output deltas instead.

// StreamOptions is the request field that asks a stream for its usage.
const StreamOptions = "stream_options"

// MaxTokens is the request field the client adds beside a chat request's
// max_completion_tokens, for servers that know only max_tokens (see
// codec.AddedMaxTokens). OpenAI's newer models refuse it; so may a server
// whose schema forbids a field it does not know.
const MaxTokens = "max_tokens"

// MaxCompletionTokens is the caller's field that the client's max_tokens
// stands beside, holding the same limit. A server that forbids it and
// reads max_tokens (Mistral's API: 422, FastAPI's extra_forbidden) gets
// the request without it: max_tokens still holds the caller's limit.
const MaxCompletionTokens = "max_completion_tokens"

// TakesMaxCompletionTokens reports whether host, a server's host and
// port, is one of OpenAI's, which read max_completion_tokens for every
// model and refuse max_tokens for their newer ones: requests to it go
// without the max_tokens the client would add, saving the refusal's round
// trip.
func TakesMaxCompletionTokens(host string) bool {
	h := hostname(host)
	return h == "api.openai.com" || strings.HasSuffix(h, ".openai.azure.com") || strings.HasSuffix(h, ".cognitiveservices.azure.com")
}

// hostname returns host, a server's host and port, without its port, in
// lower case.
func hostname(host string) string {
	h := strings.ToLower(host)
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.Contains(h[i:], "]") {
		h = h[:i]
	}
	return h
}

// RefusedFields is the set of fields servers refused, each server named
// by its host and port and the API version its requests name (Azure's
// api-version query parameter), which decides what it accepts. Its
// methods are safe for concurrent use; the nil set holds none and learns
// nothing.
type RefusedFields struct {
	m    sync.Map // of refusal
	some atomic.Bool
}

type refusal struct{ server, field string }

// serverOf names the server req is sent to.
func serverOf(req *http.Request) string {
	return req.URL.Host + "?" + req.URL.Query().Get("api-version")
}

// Refuses reports whether the server of req refused field.
func (s *RefusedFields) Refuses(req *http.Request, field string) bool {
	if s == nil || !s.some.Load() {
		return false // nothing learnt: no request is looked up
	}
	_, ok := s.m.Load(refusal{serverOf(req), field})
	return ok
}

// Learn notes that the server of req refused field.
func (s *RefusedFields) Learn(req *http.Request, field string) {
	if s != nil {
		s.m.Store(refusal{serverOf(req), field}, struct{}{})
		s.some.Store(true)
	}
}

// RefusedField returns the first of fields, those the client added to the
// request that res answers, that res refuses: a status 400 or 422 whose
// error body names it; "" when it refuses none. It reads the body,
// bounded already (BoundErrorBody), and puts it back.
func RefusedField(res *http.Response, fields []string) string {
	if len(fields) == 0 || res == nil || res.Body == nil || (res.StatusCode != http.StatusBadRequest && res.StatusCode != http.StatusUnprocessableEntity) {
		return ""
	}
	body, err := ErrorBody(res)
	if err != nil {
		return ""
	}
	for _, f := range fields {
		if refuses(body, f) {
			return f
		}
	}
	return ""
}

// refuses reports whether body, an error answer, refuses field: it names
// it. Servers word the refusal of max_tokens in many ways ("Unsupported
// parameter", "cannot be set at the same time" as max_completion_tokens:
// OpenAI, Volcengine, gateways relaying them), and name it also when its
// value is too large (vLLM): any error that names a field the client
// added is taken for its refusal, since a request sent again without it
// gets the answer the caller's own request gets, the same error included.
// An error that echoes the whole request (see echoesRequest) names every
// field the request had: there the field must be named once more, by the
// error itself.
//
// The caller's max_completion_tokens is refused only by an error that
// forbids it (see forbidsField): one that names it for its value (too
// large) may come from a server that reads it alone, which would lose the
// caller's limit with it.
//
// A field written name=value (see SkipRefusal) is refused by an error
// that names name.
func refuses(body []byte, field string) bool {
	field, _, _ = strings.Cut(field, "=")
	n := bytes.Count(body, []byte(field))
	if field == MaxCompletionTokens && !forbidsField(body) {
		return false
	}
	return n > 1 || n == 1 && !echoesRequest(body)
}

// forbidPhrases are how servers say a request holds a field they do not
// take: FastAPI's extra_forbidden (Mistral's API), OpenAI's unsupported or
// unrecognized parameter, Azure AI Foundry's "Extra parameters ['…'] are
// not allowed when extra-parameters is not set or set to be 'error'", its
// words for any field the deployed model does not take unless the
// request's extra-parameters header says pass-through (BerriAI/litellm#9800,
// langchain-ai/langchain#29679), and the like.
var forbidPhrases = []string{"extra_forbidden", "not permitted", "unsupported parameter", "unrecognized", "unknown parameter", "unknown field", "not supported", "extra parameters"}

// forbidsField reports whether body, an error answer, says the request
// holds a field the server does not take.
func forbidsField(body []byte) bool {
	return says(strings.ToLower(string(body)), forbidPhrases)
}

// echoesRequest reports whether body, an error answer, holds the request
// it answers, as a validation error's input: it names the request's model
// and its prompt, messages or input, as keys in quotes of either kind.
// TensorRT-LLM's trtllm-serve answers every request its schema refuses so,
// with FastAPI's RequestValidationError as a string whose errors carry the
// whole body as their input (tensorrt_llm/serve/openai_server.py,
// validation_exception_handler): a completions request with a suffix,
// refused for the suffix, names the stream_options beside it.
func echoesRequest(body []byte) bool {
	named := func(keys ...string) bool {
		for _, k := range keys {
			if bytes.Contains(body, []byte(`"`+k+`"`)) || bytes.Contains(body, []byte(`'`+k+`'`)) {
				return true
			}
		}
		return false
	}
	return named("model") && named("prompt", "messages", "input")
}

// Without returns body, a request's JSON, without its member field (a
// top-level name such as stream_options or max_tokens), and whether it
// had one.
func Without(body []byte, field string) ([]byte, bool) {
	out, err := sjson.DeleteBytes(body, field)
	if err != nil || len(out) == len(body) {
		return body, false
	}
	return out, true
}
