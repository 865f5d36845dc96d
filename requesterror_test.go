package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
)

// TestLlamaCppRequestErrorUnder500 replays request errors that llama.cpp's
// server (an image for a model without its projector, August 2026) and
// ik_llama.cpp (n = 2, August 2026) answer with 500 "server_error", both
// recorded live, and llama.cpp's refusal of a request's messages by the
// model's chat template (raise_exception), from llama-server in the words
// of either of its template engines and passed on by Ollama's llama-server
// engine, rebuilt from their sources, an image for a model without its
// projector passed on so by Ollama, and ik_llama.cpp's refusal of a
// response_format schema its grammar converter cannot take (August 2026)
// and of the type json_schema by its builds of 2025 (a user's report),
// rebuilt from its source, and llama-server's refusal of a tool call's
// arguments that are not JSON in the request's history (2026), itself and
// behind nginx, which writes its own Server header, and of a tool whose
// description is null (2025), rebuilt from users' reports and its
// source. The caller gets the server's message as a KindRequest 400
// after one request, not three (openai-go sends a 500 again twice); a
// Router falls back, and the breaker of the server, which is well, stays
// closed. A 500 that is the server's failure is still sent again and
// still counted.
func TestLlamaCppRequestErrorUnder500(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n2 := loadRecording(t, "ikllama-2026-chat-n2-refused.jsonl")
		failed := n2 // the same server failing: a message of no request error
		failed.Reads = []recordedRead{{TMS: 3, Data: `{"error":{"code":500,"message":"llama_decode failed","type":"server_error"}}`}}
		wantRequestErrorsUnder500(t, "v1/", []refusedUnder500{
			{"image", loadRecording(t, "llamacpp-2026-chat-image-refused.jsonl"), "image input is not supported"},
			{"n2", n2, "Only one completion choice is allowed"},
			{"jinja", loadRecording(t, "conformance/llamacpp-2026-jinja-exception-500.jsonl"), "Jinja Exception: System message must be at the beginning."},
			{"ollamajinja", loadRecording(t, "conformance/ollama-2026-08-llamaserver-jinja-exception-500.jsonl"), "Jinja Exception: After the optional system message"},
			{"ollamaimage", loadRecording(t, "conformance/ollama-2026-08-llamaserver-image-no-projector-500.jsonl"), "image input is not supported - hint:"},
			{"owuiollamaimage", loadRecording(t, "conformance/openwebui-ollama-llamaserver-image-no-projector-500.jsonl"), "image input is not supported - hint:"},
			{"minja", loadRecording(t, "conformance/jan-llamacpp-minja-roles-alternate-500.jsonl"), "Conversation roles must alternate"},
			{"schema", loadRecording(t, "conformance/ikllama-json-schema-conversion-failed-500.jsonl"), "JSON schema conversion failed:\nPattern must start with '^'"},
			{"format", loadRecording(t, "conformance/ikllama-2025-response-format-json-schema-500.jsonl"), `response_format type must be one of "text" or "json_object"`},
			{"toolargs", loadRecording(t, "conformance/llamacpp-2026-tool-arguments-not-json-500.jsonl"), "Failed to parse tool call arguments as JSON: [json.exception.parse_error.101]"},
			{"nginxtoolargs", loadRecording(t, "conformance/nginx-llamacpp-tool-arguments-not-json-500.jsonl"), "Failed to parse tool call arguments as JSON: [json.exception.parse_error.101]"},
			{"toolnull", loadRecording(t, "conformance/llamacpp-2025-tool-description-null-500.jsonl"), "Failed to parse tools: [json.exception.type_error.302] type must be string, but is null"},
		}, failed)
	})
}

// TestLiteLLMWrappedRefusalUnder500 replays llama-server's refusal of a
// tool call's arguments that are not JSON in the request's history as
// LiteLLM's proxy wraps it (vxcontrol/pentagi#313): its own 500, type
// null, llama.cpp's words inside its message. The caller gets it as a
// KindRequest 400 after one request; a Router falls back and the breaker
// stays closed. A failure of the upstream that LiteLLM wraps the same
// way, whose words are no refusal's, is still sent again and counted.
func TestLiteLLMWrappedRefusalUnder500(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		refused := loadRecording(t, "conformance/litellm-llamacpp-tool-arguments-not-json-500.jsonl")
		failed := refused
		failed.Reads = []recordedRead{{TMS: 3, Data: `{"error":{"message":"litellm.InternalServerError: InternalServerError: Custom_openaiException - llama_decode failed. Received Model Group=qwen3.6-35b\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"500"}}`}}
		wantRequestErrorsUnder500(t, "v1/", []refusedUnder500{
			{"litellmtoolargs", refused, "Custom_openaiException - Failed to parse tool call arguments as JSON: [json.exception.parse_error.101]"},
		}, failed)
	})
}

// refusedUnder500 is a request error a server answers with a status of
// 500 or more: the route's name (the first segment of its path), the
// recorded answer and what its message must say.
type refusedUnder500 struct {
	name    string
	rec     recording
	message string
}

// wantRequestErrorsUnder500 serves each refusal under its name and api
// ("v1/", say), failed under "failed", and an answer anywhere else. Each
// refusal must reach the caller as a KindRequest 400 with its message,
// no text, after one request (openai-go, with its default retries, sends
// a 500 again twice); a Router must fall back to the answer, and its
// breaker of the refusing server, which is well, stay closed over more
// calls than open one. The failure, the server's own, must still be sent
// again and open the breaker.
func wantRequestErrorsUnder500(t *testing.T, api string, refusals []refusedUnder500, failed recording) {
	t.Helper()
	answer := loadRecording(t, "llamacpp-110m-chat-stream.jsonl")
	_, hc, counts := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		for _, rf := range refusals {
			if strings.HasPrefix(r.URL.Path, "/"+rf.name+"/") {
				replay(rf.rec)(w, r)
				return
			}
		}
		if strings.HasPrefix(r.URL.Path, "/failed/") {
			replay(failed)(w, r)
			return
		}
		replay(answer)(w, r)
	})
	base := func(name string) option.RequestOption {
		return option.WithBaseURL("http://" + name + ".invalid/" + name + "/" + api)
	}
	client := func(name string) *tokenpace.Client {
		return tokenpace.NewClient(openai.NewClient(base(name), option.WithHTTPClient(hc),
			option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(2))) // openai-go's default
	}
	path := func(name string) string { return "/" + name + "/" + api + "chat/completions" }
	ctx := context.Background()
	want := recordedText(t, answer)

	for _, rf := range refusals {
		s := client(rf.name).NewStreaming(ctx, chat("m", 4))
		text := readAll(t, s)
		var se *tokenpace.StreamError
		var ae *openai.Error
		if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindRequest || !errors.As(s.Err(), &ae) || ae.StatusCode != http.StatusBadRequest ||
			!strings.Contains(ae.Message, rf.message) || text != "" || counts.of(path(rf.name)) != 1 {
			t.Errorf("%s: text %q, err %v, %d requests; want the server's %q as a KindRequest 400, sent once",
				rf.name, text, s.Err(), counts.of(path(rf.name)), rf.message)
		}

		rt, err := tokenpace.NewRouter(client(rf.name), tokenpace.Policy{},
			tokenpace.Route{Name: rf.name}, tokenpace.Route{Name: "ok", Options: []option.RequestOption{base("ok")}})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 12 { // more than the 5 failures that open a breaker
			s := rt.NewStreaming(ctx, chat("m", 4))
			if text := readAll(t, s); s.Err() != nil || text != want || len(s.Timing().Attempts) != 2 {
				t.Fatalf("%s, Router call %d: text %q, err %v, %d attempts; want the next route's answer after the refusal", rf.name, i, text, s.Err(), len(s.Timing().Attempts))
			}
		}
		if st, ok := rt.BreakerState(rf.name); !ok || st != gobreaker.StateClosed {
			t.Errorf("%s: breaker %v after 12 request errors, want closed", rf.name, st)
		}
	}

	// The server's own failure: sent again, and counted.
	s := client("failed").NewStreaming(ctx, chat("m", 4))
	var ae *openai.Error
	if readAll(t, s); !errors.As(s.Err(), &ae) || ae.StatusCode != failed.Status || counts.of(path("failed")) != 3 {
		t.Errorf("server failure: err %v, %d requests; want its %d after 3", s.Err(), counts.of(path("failed")), failed.Status)
	}
	rt, err := tokenpace.NewRouter(client("failed"), tokenpace.Policy{},
		tokenpace.Route{Name: "failed"}, tokenpace.Route{Name: "ok", Options: []option.RequestOption{base("ok")}})
	if err != nil {
		t.Fatal(err)
	}
	for range 12 {
		readAll(t, rt.NewStreaming(ctx, chat("m", 4)))
	}
	if st, ok := rt.BreakerState("failed"); !ok || st == gobreaker.StateClosed {
		t.Errorf("server failure: breaker %v after 12 failures, want open", st)
	}
}
