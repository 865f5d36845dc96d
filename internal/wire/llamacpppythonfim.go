package wire

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Fill-in-the-middle on llama-cpp-python's server.
//
// llama-cpp-python (abetlen/llama-cpp-python) frames a suffix with the
// model's own fill-in-the-middle tokens from 0.2.70 (May 2024, #1386) to
// 0.3.6; since 0.3.7 (January 2025, 80be68a; 0.3.35 of August 2026 the
// same) it gives the model token 0 in their place (llama_cpp/llama.py,
// _create_completion: "TODO: Fix"), and its answer is no middle (see
// LlamaCppPythonAnswer). JamePeng's fork (JamePeng/llama-cpp-python),
// which ships the same server under the same name and versions, put the
// model's tokens back in June 2025 (77146b9, its 0.3.9; 0.3.48 of August
// 2026 the same). Nothing in an answer tells them apart. Their
// /openapi.json does, in part: FastAPI's schema titled "🦙 llama.cpp
// Python API" gives llama_cpp.__version__ (llama_cpp/server/app.py,
// create_app), and the fork's completion request names a
// present_penalty since its 0.3.24 (February 2026, 1e6094a), where
// upstream's names presence_penalty only. The client looks there, once a
// minute for a server (see LlamaCppPythonServers), only when an answer to
// a request with a suffix has llama-cpp-python's shape, and refuses the
// suffix unless the server says it is one that keeps it: the fork from
// June 2025 to February 2026 says nothing that upstream's builds of the
// same versions do not, nor does a server behind a relay that routes no
// /openapi.json, and both are refused as upstream's are.

// llamaCppPythonTitle is the title of llama-cpp-python's OpenAPI schema.
const llamaCppPythonTitle = "🦙 llama.cpp Python API"

// OpenAPIKeepsSuffix reports whether body, the answer of a server's
// /openapi.json, says it is a build of llama-cpp-python's server that
// frames a suffix with the model's fill-in-the-middle tokens: upstream's
// 0.2.70 to 0.3.6, or JamePeng's fork since its 0.3.24, whose completion
// request names a present_penalty. Any other body, another server's
// schema included, reports false.
func OpenAPIKeepsSuffix(body []byte) bool {
	if !gjson.ValidBytes(body) {
		return false
	}
	info := gjson.GetBytes(body, "info")
	if info.Get("title").String() != llamaCppPythonTitle {
		return false
	}
	if gjson.GetBytes(body, "components.schemas.CreateCompletionRequest.properties.present_penalty").Exists() {
		return true
	}
	v, ok := version(info.Get("version").String())
	return ok && slices.Compare(v[:], []int{0, 2, 70}) >= 0 && slices.Compare(v[:], []int{0, 3, 7}) < 0
}

// version reads s, a version "major.minor.patch" with anything after the
// patch's digits ignored ("0.3.6+cu121").
func version(s string) (v [3]int, ok bool) {
	parts := strings.SplitN(s, ".", 3)
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		end := 0
		for end < len(p) && p[end] >= '0' && p[end] <= '9' {
			end++
		}
		n, err := strconv.Atoi(p[:end])
		if err != nil || (i < 2 && end != len(p)) {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

// LlamaCppPythonServers is the set of what llama-cpp-python servers'
// /openapi.json said of their fill-in-the-middle, each for a minute
// after it said it. Its methods are safe for concurrent use; the nil set
// asks nothing and knows nothing.
type LlamaCppPythonServers struct {
	looks serverLooks[bool]
}

// openAPIPaths is where a FastAPI server gives its schema.
var openAPIPaths = []string{"/openapi.json"}

// KeepsSuffix reports whether the server of req, a completions request
// with a suffix whose answer has llama-cpp-python's shape, says at its
// /openapi.json that it keeps the suffix (see OpenAPIKeepsSuffix): what
// it said within a minute, or what it says now, asked with req's headers
// (its credentials) through send. A look that fails or says nothing
// reports false, and is remembered as such; one look at a time goes to a
// server, and a call whose context ends first gets false (see
// serverLooks.get).
func (s *LlamaCppPythonServers) KeepsSuffix(req *http.Request, send func(*http.Request) (*http.Response, error)) bool {
	if s == nil {
		return false
	}
	return s.looks.get(req, func(root url.URL, header http.Header) bool {
		body := lookAt(root, header, openAPIPaths, send)
		return body != nil && OpenAPIKeepsSuffix(body)
	})
}
