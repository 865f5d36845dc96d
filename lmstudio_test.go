package tokenpace_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestLMStudioUnexpectedEndpointNotCounted: LM Studio's server answers a
// path it does not serve with status 200 and
// {"error":"Unexpected endpoint or method. (POST /completions)"}, not 404
// ("Returning 200 anyway", its log says; lmstudio-ai/lmstudio-bug-tracker
// #618, #2085): an editor's completions client whose base URL lacks /v1,
// or that asks a path of another server's (/v1/completion, /infill,
// /v1/fim/completions), meets it on its first request. The caller must
// get status 404 with the server's words, and a breaker must not count a
// route's wrong path as the server's failure, as it does not count a 404.
func TestLMStudioUnexpectedEndpointNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "lmstudio-unexpected-endpoint-200", http.StatusNotFound, completionErr(t))
	})
}

// TestLMStudioTemplateRefusalNotCounted: LM Studio passes on llama-server's
// 500 for a chat template's refusal of the request's messages (its
// raise_exception) inside a 200 event stream, as an event named error
// with "Engine protocol predict request returned 500: Jinja Exception: …"
// (webai-at-home/webai-at-home#215, LM Studio 0.4.20). The same messages
// are refused the same way every time: the caller must get status 400
// with the server's words, as from llama-server and Ollama (see
// wire.ChatTemplateRefusal), and a breaker must not count it. Before, it
// was status 200 and a breaker of one failure opened on a server that is
// well.
func TestLMStudioTemplateRefusalNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "lmstudio-jinja-exception-error-event", http.StatusBadRequest, chatErr(t))
	})
}

// TestLMStudioSchemaRefusalNotCounted: LM Studio passes on its llama.cpp
// engine's 400 for a JSON schema the grammar converter cannot take (a
// pattern not anchored by ^ and $, as agents' tool schemas hold; in
// response_format or a tool's parameters) inside a 200 event stream, as
// an event named error with "Engine protocol predict request returned
// 400: " and the engine's error (lmstudio-ai/lmstudio-bug-tracker#2168,
// #2197, LM Studio 0.4.19 and 0.4.20). The engine named it the request's:
// the caller must get status 400 with the server's words, and a breaker
// must not count it. Before, it was status 200 and a breaker of one
// failure opened on a server that is well. The engine's 500 (a model
// that failed) stays the server's (TestLMStudioEngineStatus).
func TestLMStudioSchemaRefusalNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "lmstudio-json-schema-refused-error-event", http.StatusBadRequest, chatErr(t))
	})
}

// TestLMStudioContextOverflowNotCounted: LM Studio sends its 200 event
// stream before it reads the prompt, and refuses a prompt over the loaded
// model's context inside it, as an event named error with "Input does
// not fit in context length. The input has N tokens, but the context
// length only supports M tokens." and no type or code
// (aaif-goose/goose#11318; lmstudio-ai/lmstudio-bug-tracker#2322). It
// read as the server's failure with status 200: a breaker of one failure
// opened on a server that was well after one prompt too long for the
// context it was loaded with. The caller now gets status 400 with the
// server's words, as from TabbyAPI's overflow inside its stream; the
// breaker stays closed, and a Router still asks its next route, whose
// context may be longer.
func TestLMStudioContextOverflowNotCounted(t *testing.T) {
	const name = "lmstudio-context-overflow-error-event"
	t.Run("breaker", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			wantRefusalsNotCounted(t, name, http.StatusBadRequest, chatErr(t))
		})
	})
	t.Run("next route", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var fx conformance
			fx.Reads = readFixture(t, "testdata/conformance/"+name+".jsonl", &fx)
			url, hc := serve(t, byModel(map[string]http.Handler{
				"first":  replay(fx.recording),
				"second": sseBody(chunk("s1", "a longer context", "stop", "") + "data: [DONE]\n\n"),
			}))
			r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)),
				tokenpace.Policy{Breaker: tokenpace.BreakerSettings{Failures: 1}}, route("first"), route("second"))
			if err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				s := r.NewStreaming(context.Background(), chat("first", 64))
				text := readAll(t, s)
				if s.Err() != nil || text != "a longer context" {
					t.Fatalf("call %d: %q, %v; want the next route's answer", i+1, text, s.Err())
				}
				if got := s.Timing().Target; got != "second" {
					t.Errorf("call %d: Timing().Target = %q, want %q", i+1, got, "second")
				}
				if o := outcomes(s.Timing()); len(o) != 2 {
					t.Errorf("call %d: attempts %v; want the first route asked, then the second", i+1, o)
				}
			}
		})
	})
}
