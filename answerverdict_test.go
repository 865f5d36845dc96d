package tokenpace_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/tokenpace/tokenpace"
)

// TestRapidMLXSchemaViolationCounted checks that Rapid-MLX's streamed
// failure of a strict json_schema answer (finish_reason
// "json_schema_violation", then its error event typed "validation_error")
// is the route's failure, not the caller's: the request was valid, the
// model's answer did not validate, and a route without guided decoding
// fails the same schema again. The caller gets the server's message
// (the failing path with it) and a breaker of one failure opens, where a
// "validation_error" type alone reads as a refused request's 400.
func TestRapidMLXSchemaViolationCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantFailureCounted(t, "rapidmlx-strict-schema-violation-error-event", http.StatusOK, chatErr(t))
	})
}

// TestVMLXVerdictCounted checks vMLX's verdicts on an answer that
// finished "stop" (a required tool call not made, a strict schema not
// met), sent as an error typed "invalid_request_error" after the finish:
// the route's failure, as Rapid-MLX's, not the caller's request refused.
// The caller gets the server's message and a breaker of one failure
// opens; before, the answer was whole, with a nil error.
func TestVMLXVerdictCounted(t *testing.T) {
	for _, name := range []string{"vmlx-tool-choice-required-error-after-stop", "vmlx-strict-schema-error-after-stop"} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				wantFailureCounted(t, name, http.StatusOK, chatErr(t))
			})
		})
	}
}

// TestRapidMLXSchemaViolationRestarted checks what a Router with
// Continue does with the same answer to a request that asks for a strict
// schema: it sends the request afresh to its next route, which answers
// valid JSON, and tells the caller at its first chunk (Restarted); the
// caller ends with that route's object alone and a nil error. Before, the
// violating object was the whole answer, with a nil error.
func TestRapidMLXSchemaViolationRestarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fx conformance
		fx.Reads = readFixture(t, "testdata/conformance/rapidmlx-strict-schema-violation-error-event.jsonl", &fx)
		const valid = `{"value": 42}`
		second := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, chunk("s", valid, "stop", "")+"data: [DONE]\n\n")
		})
		url, hc := serve(t, byModel(map[string]http.Handler{fx.Request.Body.Model: replay(fx.recording), "second": second}))
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tokenpace.Policy{Continue: true},
			tokenpace.Route{Name: "first", Model: fx.Request.Body.Model}, route("second"))
		if err != nil {
			t.Fatal(err)
		}
		p := chat(fx.Request.Body.Model, 64)
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "NumberOnly", Strict: openai.Bool(true),
				Schema: map[string]any{"type": "object", "properties": map[string]any{"value": map[string]any{"type": "integer", "minimum": 1, "maximum": 100}}}}}}
		s := r.NewStreaming(context.Background(), p)
		restarted := 0
		for s.Next() {
			if s.Restarted() {
				restarted++
			}
		}
		s.Close()
		if got := s.Accumulated().Choices[0].Message.Content; s.Err() != nil || got != valid || restarted != 1 {
			t.Errorf("Router: Err() = %v, Accumulated %q, restarted %d times; want nil, %q, once", s.Err(), got, restarted, valid)
		}
		if n := len(s.Timing().Attempts); n != 2 || s.Timing().Attempts[1].Kind != tokenpace.AttemptRestart {
			t.Errorf("Router: attempts %v, want the first route's and a restart at the second", outcomes(s.Timing()))
		}
	})
}

// TestVMLXRequiredCallRestarted checks what a Router with Continue does
// with vMLX's verdict that a request whose tool_choice is "required" got
// words and no call: the words are the failure, so the next route is
// sent the request afresh (no assistant message of those words), and the
// caller, told at its first chunk, ends with that route's call alone and
// a nil error. Before, the words were continued: the next route's "."
// glued to them came back as a whole answer, with a nil error and no call.
func TestVMLXRequiredCallRestarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fx conformance
		fx.Reads = readFixture(t, "testdata/conformance/vmlx-tool-choice-required-error-after-stop.jsonl", &fx)
		var asked string
		second := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			asked = string(b)
			w.Header().Set("Content-Type", "text/event-stream")
			if strings.Contains(asked, "live weather") {
				// A continuation: the server goes on after the words.
				_, _ = io.WriteString(w, chunk("s", ".", "stop", "")+"data: [DONE]\n\n")
				return
			}
			_, _ = io.WriteString(w, `data: {"id":"s","object":"chat.completion.chunk","created":1,"model":"second","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}`+"\n\ndata: [DONE]\n\n")
		})
		url, hc := serve(t, byModel(map[string]http.Handler{fx.Request.Body.Model: replay(fx.recording), "second": second}))
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tokenpace.Policy{Continue: true},
			tokenpace.Route{Name: "first", Model: fx.Request.Body.Model}, route("second"))
		if err != nil {
			t.Fatal(err)
		}
		p := chat(fx.Request.Body.Model, 64)
		p.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "get_weather"})}
		p.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("required")}
		s := r.NewStreaming(context.Background(), p)
		restarted := 0
		for s.Next() {
			if s.Restarted() {
				restarted++
			}
		}
		s.Close()
		msg := s.Accumulated().Choices[0].Message
		if s.Err() != nil || msg.Content != "" || len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Function.Name != "get_weather" || restarted != 1 {
			t.Errorf("Router: Err() = %v, Accumulated %q with %d calls, restarted %d times; want nil, no words, the second route's call, once",
				s.Err(), msg.Content, len(msg.ToolCalls), restarted)
		}
		if strings.Contains(asked, "live weather") {
			t.Errorf("the second route was sent the rejected words to continue: %s", asked)
		}
		if n := len(s.Timing().Attempts); n != 2 || s.Timing().Attempts[1].Kind != tokenpace.AttemptRestart {
			t.Errorf("Router: attempts %v, want the first route's and a restart at the second", outcomes(s.Timing()))
		}
	})
}
