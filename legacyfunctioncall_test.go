package tokenpace_test

import (
	"context"
	"net/http"
	"slices"
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

// TestLegacyFunctionCallRestart: a Router whose first route breaks after
// four of a legacy function call's deltas (the OpenAI fixture's stream
// cut there) restarts the call on the second route, as it does a tool
// call: a call cannot be continued. The caller sees Restarted at the
// second route's first chunk, and Accumulated() holds the second route's
// call once, not the first's pieces before it.
func TestLegacyFunctionCallRestart(t *testing.T) {
	const args = "{\n  \"location\": \"Boston, MA\"\n}"
	fx := loadConformance(t)["openai-chat-legacy-function-call"]
	cut := fx.recording
	cut.Reads = slices.Clone(fx.recording.Reads[:4])
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, byModel(map[string]http.Handler{"gpt-4o-mini": replay(cut), "second": replay(fx.recording)}))
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tokenpace.Policy{Continue: true},
			tokenpace.Route{Name: "first", Model: "gpt-4o-mini"}, route("second"))
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewStreaming(context.Background(), chat("gpt-4o-mini", 64))
		var restarted []int
		var read string // the arguments as a caller adds them up
		for i := 0; s.Next(); i++ {
			if s.Restarted() {
				restarted, read = append(restarted, i), ""
			}
			for _, ch := range s.Current().Choices {
				//lint:ignore SA1019 the legacy functions API is what the test reads
				read += ch.Delta.FunctionCall.Arguments
			}
		}
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		var kinds []tokenpace.AttemptKind
		for _, a := range s.Timing().Attempts {
			kinds = append(kinds, a.Kind)
		}
		if !slices.Equal(kinds, []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptRestart}) || !slices.Equal(restarted, []int{4}) {
			t.Errorf("attempts %v, Restarted at chunks %v; want first and restart, Restarted at chunk 4", kinds, restarted)
		}
		ch := s.Accumulated().Choices[0]
		//lint:ignore SA1019 the legacy functions API is what the test reads
		if fc := ch.Message.FunctionCall; fc.Arguments != args || read != args || ch.FinishReason != "function_call" {
			t.Errorf("Accumulated() = arguments %q, finish %q, the caller's own %q; want %q once, \"function_call\"", fc.Arguments, ch.FinishReason, read, args)
		}
	})
}

// TestLegacyFunctionCallBesideToolCall: llama-cpp-python streams its call
// both as tool_calls and as function_call
// (testdata/conformance/llama-cpp-python-toolchoice-name-every-delta.jsonl):
// Accumulated() holds it as the tool call alone, and the next request's
// assistant message carries it once.
func TestLegacyFunctionCallBesideToolCall(t *testing.T) {
	fx := loadConformance(t)["llama-cpp-python-toolchoice-name-every-delta"]
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, byModel(map[string]http.Handler{fx.Request.Body.Model: replay(fx.recording)}))
		s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat(fx.Request.Body.Model, 64))
		for s.Next() {
		}
		s.Close()
		m := s.Accumulated().Choices[0].Message
		//lint:ignore SA1019 the legacy functions API is what the test reads
		fc, pf := m.FunctionCall, m.ToAssistantMessageParam().FunctionCall
		if s.Err() != nil || len(m.ToolCalls) != 1 || fc.Name != "" || fc.Arguments != "" || pf.Name != "" || pf.Arguments != "" {
			t.Errorf("Err() = %v, Accumulated() %d tool calls, function_call %q(%q), in the next request %q(%q); want nil, 1, none, none",
				s.Err(), len(m.ToolCalls), fc.Name, fc.Arguments, pf.Name, pf.Arguments)
		}
	})
}

// TestLegacyFunctionCallWhole: a whole answer of the legacy functions API
// (OpenAI's, Azure OpenAI's non-streamed answer to a request with
// `functions`: content null, the call in message.function_call, finish
// "function_call"; openai/openai-cookbook#496) is an answer: a Router's
// New returns it from the first route, where it took the answer, which
// had no content, tool call or audio, for an empty one and asked the
// second route (billed twice, the call lost). The same answer sent whole
// to a streamed request (TabbyAPI's disable_request_streaming: see
// codec.WholeChat) is the call in Accumulated(), where it was lost.
func TestLegacyFunctionCallWhole(t *testing.T) {
	const name, args = "get_current_weather", `{"location": "Boston, MA"}`
	body := `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":null,"function_call":{"name":"get_current_weather","arguments":"{\"location\": \"Boston, MA\"}"}},"finish_reason":"function_call"}],"usage":{"prompt_tokens":82,"completion_tokens":18,"total_tokens":100}}`
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, byModel(map[string]http.Handler{"gpt-4o-mini": jsonAnswer(body), "second": wholeAnswer("second")}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, tokenpace.Route{Name: "first", Model: "gpt-4o-mini"}, route("second"))
		if err != nil {
			t.Fatal(err)
		}
		var tm *tokenpace.Timing
		res, err := r.New(context.Background(), chat("gpt-4o-mini", 64), tokenpace.WithTimingInto(&tm))
		if err != nil || res.Model != "gpt-4o-mini" || len(tm.Attempts) != 1 {
			t.Fatalf("Router.New() = %v, model %q, %d attempts; want the first route's answer, one attempt", err, res.Model, len(tm.Attempts))
		}
		//lint:ignore SA1019 the legacy functions API is what the test reads
		if fc := res.Choices[0].Message.FunctionCall; fc.Name != name || fc.Arguments != args || res.Choices[0].FinishReason != "function_call" {
			t.Errorf("Router.New() = function_call %s(%q), finish %q; want %s(%q), \"function_call\"", fc.Name, fc.Arguments, res.Choices[0].FinishReason, name, args)
		}
		for _, via := range []string{"Client", "Router"} {
			var s *tokenpace.Stream[openai.ChatCompletionChunk]
			if via == "Router" {
				s = r.NewStreaming(context.Background(), chat("gpt-4o-mini", 64))
			} else {
				s = c.NewStreaming(context.Background(), chat("gpt-4o-mini", 64))
			}
			for s.Next() {
			}
			s.Close()
			ch := s.Accumulated().Choices[0]
			//lint:ignore SA1019 the legacy functions API is what the test reads
			fc := ch.Message.FunctionCall
			if s.Err() != nil || fc.Name != name || fc.Arguments != args || ch.FinishReason != "function_call" || len(s.Timing().Attempts) > 1 {
				t.Errorf("%s stream answered whole: Err() = %v, Accumulated() function_call %s(%q), finish %q, %d attempts; want nil, %s(%q), \"function_call\", one",
					via, s.Err(), fc.Name, fc.Arguments, ch.FinishReason, len(s.Timing().Attempts), name, args)
			}
		}
	})
}
