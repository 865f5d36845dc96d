package tokenpace_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestTGIToolCallWithoutFinish: TGI's Messages API (3.2 and later)
// streams a tool call's JSON and then makes no event of the tokens after
// it, the one that carries the finish reason among them
// (router/src/chat.rs, ChatState::push): the call is whole, and the
// stream ends with [DONE] after no finish reason, the usage chunk before
// it when it was asked for (testdata/conformance/tgi-toolcall-no-finish.jsonl).
// Such an answer is a finished call, "tool_calls" in Accumulated(), with
// the usage asked or without it. A call whose arguments are not whole, or
// one that a server other than TGI left without a finish reason (a relay
// that writes [DONE] when its upstream broke), is still cut.
func TestTGIToolCallWithoutFinish(t *testing.T) {
	const tgi = `"object":"chat.completion.chunk","id":"","created":1767200000,"model":"m","system_fingerprint":"3.3.6-native"`
	opened := `data: {` + tgi + `,"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"0","type":"function","function":{"name":"get_weather","arguments":"{"}}]},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n"
	args := func(a string) string {
		return `data: {` + tgi + `,"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"0","type":"function","function":{"name":null,"arguments":` + a + `}}]},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n"
	}
	usage := `data: {` + tgi + `,"choices":[],"usage":{"prompt_tokens":231,"completion_tokens":12,"total_tokens":243}}` + "\n\n"
	relayed := `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]},"finish_reason":null}]}` + "\n\n"
	const done = "data: [DONE]\n\n"
	for _, tt := range []struct {
		name     string
		noUsage  bool
		events   []string
		wantArgs string
		cut      bool
	}{
		{"the usage asked", false, []string{opened, args(`" \"city\": \""`), args(`"Paris"`), args(`"\"}"`), usage, done}, `{ "city": "Paris"}`, false},
		{"no usage asked", true, []string{opened, args(`" \"city\": \""`), args(`"Paris"`), args(`"\"}"`), done}, `{ "city": "Paris"}`, false},
		{"a brace inside a string", true, []string{opened, args(`" \"q\": \"}{\\\"}\""`), args(`"}"`), done}, `{ "q": "}{\"}"}`, false},
		{"the arguments not whole", false, []string{opened, args(`" \"city\": \""`), args(`"Paris"`), usage, done}, `{ "city": "Paris`, true},
		{"another server's call", false, []string{relayed, done}, `{"city": "Paris"}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, script("text/event-stream", tt.events...))
				p := chat("m", 64)
				p.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "get_weather"})}
				if tt.noUsage {
					p.StreamOptions.IncludeUsage = openai.Bool(false)
				}
				s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), p)
				for s.Next() {
				}
				s.Close()
				acc := s.Accumulated()
				if len(acc.Choices) != 1 || len(acc.Choices[0].Message.ToolCalls) != 1 || acc.Choices[0].Message.ToolCalls[0].Function.Arguments != tt.wantArgs {
					t.Fatalf("Accumulated() = %+v, want one call with the arguments %s", acc.Choices, tt.wantArgs)
				}
				if tt.cut {
					if se := checkKind(t, s.Err(), tokenpace.KindTruncated); se != nil && se.Detail != "no finish_reason" {
						t.Errorf("Detail %q, want no finish_reason", se.Detail)
					}
					return
				}
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil: the call was whole", err)
				}
				if f := acc.Choices[0].FinishReason; f != "tool_calls" {
					t.Errorf("Accumulated()'s finish reason %q, want tool_calls", f)
				}
				if tm := s.Timing(); tm.FinishReason != "tool_calls" || tm.UsageReported == tt.noUsage {
					t.Errorf("Timing: finish reason %q, usage reported %v; want tool_calls, %v", tm.FinishReason, tm.UsageReported, !tt.noUsage)
				}
			})
		})
	}
}
