package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// llamaCppToolCalls is the conformance fixture of llama.cpp's streamed
// tool calls (testdata/conformance/llamacpp-toolcalls-held-name.jsonl):
// each call's id and name in a delta of their own, held back until its
// arguments begin; call 1 opened before call 0's closing brace; call 2
// whole in the final result; the finish reason "tool_calls", then usage
// and timings in a chunk without choices.
func llamaCppToolCalls(t *testing.T) conformance {
	t.Helper()
	return loadConformance(t)["llamacpp-toolcalls-held-name"]
}

// chatWithTwoTools is the fixture's request: two tools offered.
func chatWithTwoTools(model string) openai.ChatCompletionNewParams {
	p := chat(model, 256)
	for _, name := range []string{"get_weather", "get_time"} {
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: name}))
	}
	return p
}

// callNames lists the name and arguments of each accumulated call.
func callNames(calls []openai.ChatCompletionMessageToolCallUnion) []string {
	var s []string
	for _, c := range calls {
		s = append(s, c.Function.Name+c.Function.Arguments)
	}
	return s
}

// TestLlamaCppToolCallsBare: bare openai-go's accumulator reads the
// fixture's three calls whole too, keyed by index (call 0's closing brace
// after call 1's opening), with the finish reason and the usage: the
// fixture's premise, and what a Client and a Router must not lose
// (TestConformance checks them).
func TestLlamaCppToolCallsBare(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx := llamaCppToolCalls(t)
		url, hc := serve(t, replay(fx.recording))
		oc := openaiClient(url, hc)
		s := oc.Chat.Completions.NewStreaming(context.Background(), chatWithTwoTools("qwen3-8b"))
		var acc openai.ChatCompletionAccumulator
		for s.Next() {
			acc.AddChunk(s.Current())
		}
		want := []string{`get_weather{"city":"Paris"}`, `get_weather{"city":"Rome"}`, `get_time{"tz":"Europe/Rome"}`}
		if s.Err() != nil || len(acc.Choices) != 1 || !slices.Equal(callNames(acc.Choices[0].Message.ToolCalls), want) ||
			acc.Choices[0].FinishReason != "tool_calls" || acc.Usage.PromptTokens != 230 || acc.Usage.CompletionTokens != 52 {
			t.Errorf("bare openai-go: err %v, %+v, usage %+v; want %q, \"tool_calls\", 230 and 52", s.Err(), acc.Choices, acc.Usage, want)
		}
	})
}

// TestLlamaCppToolCallsCut: the same stream cut inside call 1's
// arguments ({"city":"Rome" read, its brace and call 2 never sent), the
// body ended with no finish reason and no [DONE], as when llama-server
// dies mid-answer. Bare openai-go reads the end of the body as the end of
// the answer: no error, and call 1's arguments half a JSON object. The
// Client reports a cut stream (KindTruncated), its partial calls kept for
// the caller to see and not run; a Router with Continue restarts the
// call on its second route, whose answer replaces the calls read.
func TestLlamaCppToolCallsCut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx := llamaCppToolCalls(t)
		cut := fx.recording
		cut.Reads = cut.Reads[:len(cut.Reads)-1]
		url, hc := serve(t, byModel(map[string]http.Handler{"qwen3-8b": replay(cut), "second": secondRoute}))
		p := chatWithTwoTools("qwen3-8b")

		oc := openaiClient(url, hc)
		bare := oc.Chat.Completions.NewStreaming(context.Background(), p)
		var acc openai.ChatCompletionAccumulator
		for bare.Next() {
			acc.AddChunk(bare.Current())
		}
		half := []string{`get_weather{"city":"Paris"}`, `get_weather{"city":"Rome"`}
		if bare.Err() != nil || len(acc.Choices) != 1 || !slices.Equal(callNames(acc.Choices[0].Message.ToolCalls), half) {
			t.Errorf("bare openai-go: err %v, %+v; the fixture's premise is nil and %q", bare.Err(), acc.Choices, half)
		}

		c := tokenpace.NewClient(openaiClient(url, hc))
		got := readChat(c.NewStreaming(context.Background(), p))
		var se *tokenpace.StreamError
		if !errors.As(got.err, &se) || se.Kind != tokenpace.KindTruncated {
			t.Errorf("Client: Err() = %v, want a *StreamError of KindTruncated", got.err)
		}
		if names := callNames(got.toolCalls); !slices.Equal(names, half) || got.tm.FinishReason != "" {
			t.Errorf("Client: calls %q, finish %q; want the partial calls %q kept, no finish reason", names, got.tm.FinishReason, half)
		}
		if got.tm.TTFT() != ms(493) {
			t.Errorf("Client: TTFT %v, want 493ms, call 0's opening", got.tm.TTFT())
		}

		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true}, tokenpace.Route{Name: "first", Model: "qwen3-8b"}, route("second"))
		if err != nil {
			t.Fatal(err)
		}
		got = readChat(r.NewStreaming(context.Background(), p))
		if got.err != nil || got.acc != extra || len(got.toolCalls) != 0 || got.tm.FinishReason != "stop" {
			t.Errorf("Router: err %v, text %q, calls %q, finish %q; want the second route's answer %q alone, \"stop\"",
				got.err, got.acc, callNames(got.toolCalls), got.tm.FinishReason, extra)
		}
		if k := kinds(got.tm); !slices.Equal(k, []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptRestart}) {
			t.Errorf("Router: attempts %v, want first then restart", k)
		}
	})
}
