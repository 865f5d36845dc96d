package wire

import "testing"

func TestOpenAPIKeepsSuffix(t *testing.T) {
	// FastAPI's schema, as llama-cpp-python's server gives it: info's
	// title and llama_cpp.__version__, the request models under
	// components.schemas (llama_cpp/server/app.py, types.py).
	schema := func(version, penalty string) string {
		return `{"openapi":"3.1.0","info":{"title":"🦙 llama.cpp Python API","version":"` + version + `"},"paths":{},` +
			`"components":{"schemas":{"CreateCompletionRequest":{"properties":{"prompt":{"title":"Prompt"},"` + penalty + `":{"title":"Penalty"}},"type":"object","title":"CreateCompletionRequest"}}}}`
	}
	for body, want := range map[string]bool{
		schema("0.3.35", "presence_penalty"):                                             false, // upstream: token 0 in place of the FIM tokens
		schema("0.3.7", "presence_penalty"):                                              false,
		schema("0.3.20", "presence_penalty"):                                             false, // upstream, or JamePeng's fork before its 0.3.24: refused
		schema("0.3.6", "presence_penalty"):                                              true,  // upstream before 80be68a
		schema("0.2.70", "presence_penalty"):                                             true,
		schema("0.2.69", "presence_penalty"):                                             false, // no FIM: the suffix appended to the text
		schema("0.3.48", "present_penalty"):                                              true,  // JamePeng's fork since its 0.3.24
		schema("0.3.6+cu121", "presence_penalty"):                                        true,
		schema("x.y.z", "presence_penalty"):                                              false,
		`{"openapi":"3.1.0","info":{"title":"Xinference","version":"0.3.6"},"paths":{}}`: false, // another FastAPI server
		`{"detail":"Not Found"}`:                                                         false,
		`{"info":`:                                                                       false,
		``:                                                                               false,
	} {
		if got := OpenAPIKeepsSuffix([]byte(body)); got != want {
			t.Errorf("OpenAPIKeepsSuffix(%s) = %v, want %v", body, got, want)
		}
	}
}
