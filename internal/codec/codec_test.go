package codec

import (
	"errors"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace/internal/sse"
)

// TestDecode checks what each API's events decode to: the chat view's
// output count, the end, and the refusals with their kind.
func TestDecode(t *testing.T) {
	chatN2 := Chat(openai.ChatCompletionNewParams{N: openai.Int(2)}, true)
	tests := []struct {
		name     string
		req      Request
		data     string
		outputs  int
		final    bool
		toolCall bool
		usage    int64 // completion tokens, when the event has usage
		// The refusal, if any: a server error (its message), an event
		// over a bound, or a malformed one.
		server   string
		tooLarge bool
		bad      bool
	}{
		{name: "chat content", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"choices":[{"index":0,"delta":{"content":"hi"}}]}`, outputs: 1},
		{name: "chat role only", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`},
		{name: "chat reasoning", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]}`, outputs: 1},
		{name: "chat tool call", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f"}}]}}]}`, outputs: 1, toolCall: true},
		{name: "chat usage", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":7,"total_tokens":10}}`, usage: 7},
		{name: "chat two choices of n=2", req: chatN2,
			data: `{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}}]}`, outputs: 2},
		{name: "chat error field", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"error":{"message":"overloaded","type":"server_error"}}`, server: "overloaded"},
		{name: "chat error string", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"error":"model not loaded"}`, server: "model not loaded"},
		{name: "chat object error", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"object":"error","message":"context too long","type":"BadRequestError"}`, server: "context too long"},
		{name: "chat error wrapping the upstream's (Vercel AI Gateway)", req: Chat(openai.ChatCompletionNewParams{}, true),
			data:   `{"id":"gen_1","error":{"code":"error","message":"Stream error occurred","name":"AI_TypeValidationError","value":{"error_type":"validation_error","error_message":"{\"error\":{\"message\":\"prompt too long\"}}"}}}`,
			server: "prompt too long"},
		{name: "chat error true beside a message (Kong)", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"error": true, "message": "empty or unsupported transformer response"}`, server: "empty or unsupported transformer response"},
		{name: "chat x_groq error with a finish reason (Groq)", req: Chat(openai.ChatCompletionNewParams{}, true),
			data:   `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"x_groq":{"id":"req_1","error":"over_capacity"}}`,
			server: "over_capacity"},
		{name: "chat x_groq error without one (Groq)", req: Chat(openai.ChatCompletionNewParams{}, true),
			data:   `{"choices":[],"x_groq":{"id":"req_1","error":"over_capacity"}}`,
			server: "over_capacity"},
		{name: "chat x_groq without error (Groq)", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"choices":[{"index":0,"delta":{"content":"hi"}}],"x_groq":{"id":"req_1","error":null}}`, outputs: 1},
		{name: "chat base_resp error (MiniMax)", req: Chat(openai.ChatCompletionNewParams{}, true),
			data:   `{"choices":null,"usage":{"total_tokens":0},"base_resp":{"status_code":1002,"status_msg":"rate limit exceeded(RPM)"}}`,
			server: "rate limit exceeded(RPM)"},
		{name: "chat base_resp success (MiniMax)", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"choices":[{"index":0,"delta":{"content":"hi"}}],"base_resp":{"status_code":0,"status_msg":""}}`, outputs: 1},
		{name: "chat error chunk of status_code and content (Cerebras)", req: Chat(openai.ChatCompletionNewParams{}, true),
			data:   `{"status_code":500,"content":{"code":"internal_server_error","message":"Encountered an internal server error.","param":null,"type":"server_error"}}`,
			server: "Encountered an internal server error."},
		{name: "chat status_code 200 beside content, no error", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"choices":[],"status_code":200,"content":{"message":"ok"}}`},
		{name: "chat index past n", req: chatN2,
			data: `{"choices":[{"index":2,"delta":{"content":"a"}}]}`, bad: true},
		{name: "chat one choice of n=1 at index 1 (Foundry Local)", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"choices":[{"index":1,"delta":{"content":"a"}}]}`, outputs: 1},
		{name: "chat more choices than n", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"choices":[{"index":0,"delta":{}},{"index":1,"delta":{}}]}`, tooLarge: true},
		{name: "chat entries of one choice (FastDeploy)", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"choices":[{"index":0,"delta":{"content":"a"}},{"index":0,"delta":{"content":"b"}}]}`, outputs: 2},
		{name: "chat entries over MaxChoices", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"choices":[` + strings.Repeat(`{"index":0,"delta":{}},`, MaxChoices) + `{"index":0,"delta":{}}]}`, tooLarge: true},
		{name: "chat tool call index", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":500}]}}]}`, bad: true},
		{name: "chat not JSON", req: Chat(openai.ChatCompletionNewParams{}, true), data: `{"choices":`, bad: true},
		{name: "chat tool_calls one object (TGI)", req: Chat(openai.ChatCompletionNewParams{}, true),
			data:    `{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":{"index":0,"id":"","type":"function","function":{"name":null,"arguments":"{"}}}}]}`,
			outputs: 1, toolCall: true},
		{name: "chat tool_calls object index past the bound", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"choices":[{"index":0,"delta":{"tool_calls":{"index":500,"id":"x"}}}]}`, bad: true},
		{name: "chat tool_calls an empty object", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"choices":[{"index":0,"delta":{"content":"a","tool_calls":{}}}]}`, outputs: 1},
		{name: "completion text", req: Completion(openai.CompletionNewParams{}, true),
			data: `{"choices":[{"index":0,"text":"x","finish_reason":""}]}`, outputs: 1},
		{name: "completion usage", req: Completion(openai.CompletionNewParams{}, true),
			data: `{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}`, usage: 5},
		{name: "chat error of a detail alone (Open WebUI's pipe)", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"error": {"detail": "Error: HTTP 401"}}`, server: "Error: HTTP 401"},
		{name: "chat error, its message before its detail", req: Chat(openai.ChatCompletionNewParams{}, true),
			data: `{"error": {"message": "boom", "detail": "trace"}}`, server: "boom"},
		{name: "completion error", req: Completion(openai.CompletionNewParams{}, true),
			data: `{"error":{"message":"boom"}}`, server: "boom"},
		{name: "response text", req: Response(responses.ResponseNewParams{}),
			data: `{"type":"response.output_text.delta","delta":"hi"}`, outputs: 1},
		{name: "response arguments", req: Response(responses.ResponseNewParams{}),
			data: `{"type":"response.function_call_arguments.delta","delta":"{"}`, outputs: 1, toolCall: true},
		{name: "response completed", req: Response(responses.ResponseNewParams{}),
			data: `{"type":"response.completed","response":{"usage":{"input_tokens":2,"output_tokens":4}}}`, final: true},
		{name: "response error", req: Response(responses.ResponseNewParams{}),
			data: `{"type":"error","code":"rate_limit","message":"slow down"}`, server: "slow down"},
		{name: "response error nested (OpenAI, Azure)", req: Response(responses.ResponseNewParams{}),
			data:   `{"type":"error","sequence_number":2,"error":{"type":"too_many_requests","code":"too_many_requests","message":"Too Many Requests","param":null}}`,
			server: "Too Many Requests"},
		{name: "response completed, its response failed", req: Response(responses.ResponseNewParams{}),
			data: `{"type":"response.completed","response":{"status":"failed","error":{"code":"server_error","message":"died"}}}`, server: "died"},
		{name: "response done (Codex relays)", req: Response(responses.ResponseNewParams{}),
			data: `{"type":"response.done","response":{"status":"completed","usage":{"input_tokens":2,"output_tokens":4}}}`, final: true},
		{name: "response error frame (LiteLLM)", req: Response(responses.ResponseNewParams{}),
			data: `{"error":{"message":"upstream failed","type":null,"code":"500"}}`, server: "upstream failed"},
		{name: "response failed", req: Response(responses.ResponseNewParams{}),
			data: `{"type":"response.failed","response":{"error":{"code":"server_error","message":"died"}}}`, server: "died"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := tt.req.Decode([]byte(tt.data))
			var ce *Error
			refused := tt.server != "" || tt.tooLarge || tt.bad
			if (err != nil) != refused || (err != nil && !errors.As(err, &ce)) {
				t.Fatalf("Decode(%s) error = %v, want refused %v as an *Error", tt.data, err, refused)
			}
			if refused {
				switch {
				case tt.server != "":
					var into openai.Error
					if ce.Server == nil || ce.Server.Fill(&into) != nil || into.Message != tt.server {
						t.Errorf("Decode(%s) server error = %+v (message %q), want message %q", tt.data, ce.Server, into.Message, tt.server)
					}
				case ce.TooLarge != tt.tooLarge || ce.Server != nil:
					t.Errorf("Decode(%s) = %+v, want TooLarge %v", tt.data, ce, tt.tooLarge)
				}
				return
			}
			if ev.Outputs != tt.outputs || ev.Final != tt.final || ev.ToolCall != tt.toolCall {
				t.Errorf("Decode(%s) = outputs %d final %v tool call %v, want %d %v %v", tt.data, ev.Outputs, ev.Final, ev.ToolCall, tt.outputs, tt.final, tt.toolCall)
			}
			if got := ev.Usage.Output; ev.HasUsage != (tt.usage > 0) || got != tt.usage {
				t.Errorf("Decode(%s) usage = %d (has %v), want %d", tt.data, got, ev.HasUsage, tt.usage)
			}
			if tt.final && (ev.End == nil || ev.End.Reason != "stop" || ev.End.Output != 4) {
				t.Errorf("Decode(%s) end = %+v, want stop with 4 output tokens", tt.data, ev.End)
			}
		})
	}
}

// TestFinishReasonNull checks that the string "null" (KoboldCpp before
// 1.86) is no finish reason, in chat and completions events.
func TestFinishReasonNull(t *testing.T) {
	for _, tc := range []struct {
		req        Request
		data, want string
	}{
		{Chat(openai.ChatCompletionNewParams{}, true), `{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"null"}]}`, ""},
		{Chat(openai.ChatCompletionNewParams{}, true), `{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`, "stop"},
		{Completion(openai.CompletionNewParams{}, true), `{"choices":[{"index":0,"text":"a","finish_reason":"null"}]}`, ""},
		{Completion(openai.CompletionNewParams{}, true), `{"choices":[{"index":0,"text":"a","finish_reason":"length"}]}`, "length"},
	} {
		ev, err := tc.req.Decode([]byte(tc.data))
		if err != nil {
			t.Fatal(err)
		}
		if got := ev.Chunk.Choices[0].FinishReason; got != tc.want {
			t.Errorf("Decode(%s): finish reason %q, want %q", tc.data, got, tc.want)
		}
		if comp, ok := ev.Orig.(*openai.Completion); ok && string(comp.Choices[0].FinishReason) != tc.want {
			t.Errorf("Decode(%s): the completion's finish reason %q, want %q", tc.data, comp.Choices[0].FinishReason, tc.want)
		}
	}
}

// TestCost checks the bound on JSON objects: an event over it is refused
// before it is decoded, braces inside strings do not count once the event
// is scanned, and the cost of an event grows with its objects.
func TestCost(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	many := `{"choices":[` + strings.Repeat(`{},`, maxChunkObjects) + `{}]}`
	if _, err := Cost(chat, []byte(many)); err == nil {
		t.Errorf("Cost(%d objects) = nil error, want TooLarge", maxChunkObjects+2)
	}
	// The same objects are fine for a Responses event, whose final event
	// holds the whole output.
	if _, err := Cost(Response(responses.ResponseNewParams{}), []byte(many)); err != nil {
		t.Errorf("Cost(Responses, %d objects) = %v, want nil", maxChunkObjects+2, err)
	}
	braces := `{"choices":[{"delta":{"content":"` + strings.Repeat("{", 2*maxChunkObjects) + `"}}]}`
	if _, err := Cost(chat, []byte(braces)); err != nil {
		t.Errorf("Cost(braces in a string) = %v, want nil", err)
	}
	small, _ := Cost(chat, []byte(`{"a":{}}`))
	big, _ := Cost(chat, []byte(`{"a":{"b":{"c":{}}}}`))
	if big <= small {
		t.Errorf("Cost of 4 objects = %d, of 2 = %d, want more", big, small)
	}
}

// TestFor checks what a continuation sends in each API.
func TestFor(t *testing.T) {
	cont := &Continuation{Text: "The answer", Delivered: 3, Prompt: "go on"}
	chat := Chat(openai.ChatCompletionNewParams{Model: "a", MaxTokens: openai.Int(10),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("q")}}, true).For("b", cont)
	if v := chat.View(); v.Model != "b" || len(v.Messages) != 3 || v.MaxTokens.Value != 7 {
		t.Errorf("chat For = model %q, %d messages, max_tokens %d; want b, 3, 7", v.Model, len(v.Messages), v.MaxTokens.Value)
	}
	comp := Completion(openai.CompletionNewParams{Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("Q: ")},
		MaxTokens: openai.Int(10)}, true).For("b", cont).(completion)
	if got := comp.p.Prompt.OfString.Value; got != "Q: The answer" || comp.p.MaxTokens.Value != 7 || comp.Model() != "b" {
		t.Errorf("completion For = prompt %q, max_tokens %d, model %q; want %q, 7, b", got, comp.p.MaxTokens.Value, comp.Model(), "Q: The answer")
	}
	if Completion(openai.CompletionNewParams{}, true).CanContinue() {
		t.Errorf("Completion without a string prompt: CanContinue() = true, want false")
	}
	resp := Response(responses.ResponseNewParams{Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("q")},
		MaxOutputTokens: openai.Int(30)}).For("b", cont).(response)
	if n := len(resp.p.Input.OfInputItemList); n != 3 || resp.p.MaxOutputTokens.Value != 27 {
		t.Errorf("response For = %d input items, max_output_tokens %d; want 3, 27", n, resp.p.MaxOutputTokens.Value)
	}
	// The Responses API takes no max_output_tokens under 16.
	near := Response(responses.ResponseNewParams{Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("q")},
		MaxOutputTokens: openai.Int(10)}).For("b", cont).(response)
	if got := near.p.MaxOutputTokens.Value; got != 16 {
		t.Errorf("response For with 7 tokens left: max_output_tokens %d, want 16", got)
	}
}

func TestPlainTextData(t *testing.T) {
	for data, want := range map[string]string{
		"unexpected EOF":                        "unexpected EOF",
		" http2: response body closed ":         "http2: response body closed",
		"ошибка: context canceled":              "ошибка: context canceled",
		`{"choices":[{"delta":{"content":"x"`:   "", // JSON cut short
		`["a"`:                                  "",
		"42":                                    "",
		"true":                                  "",
		"":                                      "",
		"line one\nline two":                    "",
		"\xff\xfe":                              "",
		strings.Repeat("x", sse.MaxText+1):      "",
		`"a string"`:                            "",
		"<html><body>Bad Gateway</body></html>": "",
		// An error object whose message was written unescaped
		// (transformers serve): cut at a line break, or holding quotes.
		`{"error": "CUDA error: device-side assert triggered`: "CUDA error: device-side assert triggered",
		`{"error":"bad value "x" given"}`:                     `bad value "x" given`,
		`{"error": "`:                                         "",
		`{"error": {"message":"x"`:                            "",
		`{"detail": "cut`:                                     "",
	} {
		for _, r := range []Request{Chat(openai.ChatCompletionNewParams{}, true), Completion(openai.CompletionNewParams{}, true)} {
			_, err := r.Decode([]byte(data))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("%q: %v, want an *Error", data, err)
			}
			if got := ""; ce.Server != nil {
				got = ce.Server.Message
				if got != want {
					t.Errorf("%s %q: the server's message %q, want %q", r.API(), data, got, want)
				}
			} else if want != "" {
				t.Errorf("%s %q: %v, want the server's message %q", r.API(), data, err, want)
			}
		}
	}
}

// TestRefusalEvents: a chat delta's refusal and a Responses refusal delta
// mark their events as refusals, which no continuation carries on; text
// does not.
func TestRefusalEvents(t *testing.T) {
	for _, tc := range []struct {
		req  Request
		data string
		want bool
	}{
		{Chat(openai.ChatCompletionNewParams{}, true), `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"refusal":"I can"}}]}`, true},
		{Chat(openai.ChatCompletionNewParams{}, true), `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"I can"}}]}`, false},
		{Response(responses.ResponseNewParams{}), `{"type":"response.refusal.delta","sequence_number":3,"item_id":"m","output_index":0,"content_index":0,"delta":"I can"}`, true},
		{Response(responses.ResponseNewParams{}), `{"type":"response.output_text.delta","sequence_number":3,"item_id":"m","output_index":0,"content_index":0,"delta":"I can"}`, false},
	} {
		ev, err := tc.req.Decode([]byte(tc.data))
		if err != nil || ev.Refusal != tc.want {
			t.Errorf("Decode(%s): Refusal %v, error %v; want %v", tc.data, ev.Refusal, err, tc.want)
		}
	}
}

// completionFinish decodes comp, a legacy completions event, and returns
// the finish reason of its first choice as the caller's Completion gives it.
func completionFinish(t *testing.T, comp string) string {
	t.Helper()
	ev, err := Completion(openai.CompletionNewParams{}, true).Decode([]byte(comp))
	if err != nil {
		t.Fatalf("completions Decode: %v", err)
	}
	o, ok := ev.Orig.(*openai.Completion)
	if !ok {
		t.Fatalf("completions Decode: Orig %T, want *openai.Completion", ev.Orig)
	}
	return string(o.Choices[0].FinishReason)
}
