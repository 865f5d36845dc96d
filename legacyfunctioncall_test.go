package tokenpace_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestLegacyFunctionCallAccumulated: a call of the legacy functions API,
// streamed as delta.function_call pieces (OpenAI's, Azure OpenAI's:
// testdata/conformance/openai-chat-legacy-function-call.jsonl), is whole
// in Accumulated(), through a Client and through a Router: its name and
// its arguments joined, the finish reason "function_call", and the next
// request's assistant message, built by ToAssistantMessageParam, holds
// it. openai-go's accumulator drops function_call deltas: before, the
// accumulated message held no call, and an agent loop found nothing to
// run for an answer that finished "function_call".
func TestLegacyFunctionCallAccumulated(t *testing.T) {
	const name, args = "get_current_weather", "{\n  \"location\": \"Boston, MA\"\n}"
	fx := loadConformance(t)["openai-chat-legacy-function-call"]
	for _, via := range []string{"Client", "Router"} {
		t.Run(via, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, byModel(map[string]http.Handler{"gpt-4o-mini": replay(fx.recording), "second": secondRoute}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				p := chat("gpt-4o-mini", 64)
				var s *tokenpace.Stream[openai.ChatCompletionChunk]
				if via == "Router" {
					r, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true},
						tokenpace.Route{Name: "first", Model: "gpt-4o-mini"}, route("second"))
					if err != nil {
						t.Fatal(err)
					}
					s = r.NewStreaming(context.Background(), p)
				} else {
					s = c.NewStreaming(context.Background(), p)
				}
				for s.Next() {
				}
				s.Close()
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				acc := s.Accumulated()
				if len(acc.Choices) != 1 {
					t.Fatalf("Accumulated() holds %d choices, want 1", len(acc.Choices))
				}
				ch := acc.Choices[0]
				//lint:ignore SA1019 the legacy functions API is what the test reads
				fc := ch.Message.FunctionCall
				if fc.Name != name || fc.Arguments != args || ch.FinishReason != "function_call" {
					t.Errorf("Accumulated() = function_call %s(%q), finish %q; want %s(%q), \"function_call\"",
						fc.Name, fc.Arguments, ch.FinishReason, name, args)
				}
				//lint:ignore SA1019 the legacy functions API is what the test reads
				pf := ch.Message.ToAssistantMessageParam().FunctionCall
				if pf.Name != name || pf.Arguments != args {
					t.Errorf("ToAssistantMessageParam().FunctionCall = %s(%q), want %s(%q)", pf.Name, pf.Arguments, name, args)
				}
				if tm := s.Timing(); tm.FinishReason != "function_call" || (via == "Router") != (len(tm.Attempts) == 1) {
					t.Errorf("Timing: finish %q, %d attempts; want \"function_call\", and one attempt of a Router: the answer was whole", tm.FinishReason, len(tm.Attempts))
				}
			})
		})
	}
}
