package tokenpace_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// A non-streaming Router call under each policy: the response the caller
// gets, the attempts' outcomes and when the call ended. The big model's
// first token would come at 100 ms, its whole response at 400 ms: a TTFT
// budget of 300 ms bounds the whole response, so it is missed.
func TestRouterNew(t *testing.T) {
	testRouterWhole(t, tokenpace.APIChat, func(r *tokenpace.Router) (string, *tokenpace.Timing, error) {
		var tm *tokenpace.Timing
		res, err := r.New(context.Background(), chat("big", 10), tokenpace.WithTimingInto(&tm))
		if err != nil {
			return "", tm, err
		}
		return res.Choices[0].Message.Content, tm, nil
	})
}

// A non-streaming completion under each policy, as TestRouterNew.
func TestRouterNewCompletion(t *testing.T) {
	testRouterWhole(t, tokenpace.APICompletions, func(r *tokenpace.Router) (string, *tokenpace.Timing, error) {
		var tm *tokenpace.Timing
		res, err := r.NewCompletion(context.Background(), complete("big", 10), tokenpace.WithTimingInto(&tm))
		if err != nil {
			return "", tm, err
		}
		return res.Choices[0].Text, tm, nil
	})
}

// A non-streaming response under each policy, as TestRouterNew.
func TestRouterNewResponse(t *testing.T) {
	testRouterWhole(t, tokenpace.APIResponses, func(r *tokenpace.Router) (string, *tokenpace.Timing, error) {
		var tm *tokenpace.Timing
		res, err := r.NewResponse(context.Background(), respond("big", 10), tokenpace.WithTimingInto(&tm))
		if err != nil {
			return "", tm, err
		}
		if res.Status != responses.ResponseStatusCompleted {
			t.Errorf("status = %q, want completed", res.Status)
		}
		return res.OutputText(), tm, nil
	})
}

// complete returns completion params for model with max_tokens n.
func complete(model string, n int) openai.CompletionNewParams {
	return openai.CompletionNewParams{
		Model:     openai.CompletionNewParamsModel(model),
		Prompt:    openai.CompletionNewParamsPromptUnion{OfString: openai.String("Latency is")},
		MaxTokens: openai.Int(int64(n)),
	}
}

// testRouterWhole runs one non-streaming Router call per policy, made by
// call over a big and a small model that reply "B1 B2 …" and "S1 S2 …",
// and checks the text the caller gets, the attempts' outcomes, the API
// and when the call ended.
func testRouterWhole(t *testing.T, api tokenpace.API, call func(r *tokenpace.Router) (string, *tokenpace.Timing, error)) {
	t.Helper()
	tests := []struct {
		name     string
		pol      tokenpace.Policy
		bigOpts  []option.RequestOption
		want     string
		outcomes []tokenpace.Outcome
		e2e      time.Duration
	}{
		{name: "plain", want: "B1 B2 B3 B4", outcomes: []tokenpace.Outcome{tokenpace.OutcomeWon}, e2e: 400 * msec},
		{name: "TTFT budget bounds the whole response", pol: tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 300 * msec}},
			want: "S1 S2 S3 S4", outcomes: []tokenpace.Outcome{tokenpace.OutcomeBreached, tokenpace.OutcomeWon}, e2e: 380 * msec},
		{name: "hedge", pol: tokenpace.Policy{Hedge: tokenpace.Hedge{After: 100 * msec}},
			want: "S1 S2 S3 S4", outcomes: []tokenpace.Outcome{tokenpace.OutcomeHedgeLost, tokenpace.OutcomeWon}, e2e: 180 * msec},
		{name: "fallback on a server error", bigOpts: []option.RequestOption{withFault("503")},
			want: "S1 S2 S3 S4", outcomes: []tokenpace.Outcome{tokenpace.OutcomeFailed, tokenpace.OutcomeWon}, e2e: 80 * msec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				big := route("big")
				big.Options = tt.bigOpts
				r := router(t, tt.pol, []simulate.Option{
					simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 100 * msec}),
					simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
					replyByModel(4),
				}, big, route("small"))
				got, tm, err := call(r)
				if err != nil {
					t.Fatalf("call error = %v", err)
				}
				if got != tt.want {
					t.Errorf("text = %q, want %q", got, tt.want)
				}
				if tm.API != api {
					t.Errorf("API = %q, want %q", tm.API, api)
				}
				if got := outcomes(tm); !slices.Equal(got, tt.outcomes) {
					t.Errorf("outcomes = %v, want %v", got, tt.outcomes)
				}
				// No token showed before the whole answer: the caller's wait
				// is its E2E, from the call's first request, and it has no
				// TTFT, as Client.New's has none.
				if tm.Stream || tm.E2E() != tt.e2e || tm.UserTTFT() != 0 || tm.OutputTokens != 4 || !tm.UsageReported {
					t.Errorf("Stream %v, E2E %v, UserTTFT %v, output tokens %d (reported %v); want false, %v, 0, 4 (true)",
						tm.Stream, tm.E2E(), tm.UserTTFT(), tm.OutputTokens, tm.UsageReported, tt.e2e)
				}
			})
		})
	}
}

// A non-streaming call that no route answers in time fails with the last
// route's breach, whatever its API, and returns no response; Continue
// changes nothing, since the caller had no output.
func TestRouterNewBudgetMissed(t *testing.T) {
	tests := []struct {
		api  tokenpace.API
		call func(r *tokenpace.Router) (bool, *tokenpace.Timing, error)
	}{
		{tokenpace.APIChat, func(r *tokenpace.Router) (bool, *tokenpace.Timing, error) {
			var tm *tokenpace.Timing
			res, err := r.New(context.Background(), chat("big", 10), tokenpace.WithTimingInto(&tm))
			return res != nil, tm, err
		}},
		{tokenpace.APICompletions, func(r *tokenpace.Router) (bool, *tokenpace.Timing, error) {
			var tm *tokenpace.Timing
			res, err := r.NewCompletion(context.Background(), complete("big", 10), tokenpace.WithTimingInto(&tm))
			return res != nil, tm, err
		}},
		{tokenpace.APIResponses, func(r *tokenpace.Router) (bool, *tokenpace.Timing, error) {
			var tm *tokenpace.Timing
			res, err := r.NewResponse(context.Background(), respond("big", 10), tokenpace.WithTimingInto(&tm))
			return res != nil, tm, err
		}},
	}
	for _, tt := range tests {
		name := string(tt.api)
		if tt.api == tokenpace.APIChat {
			name = "chat"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 300 * msec}, Continue: true}, []simulate.Option{
					simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 100 * msec}), replyWords(4),
				}, route("big"))
				got, tm, err := tt.call(r)
				if got {
					t.Errorf("a response was returned, want none")
				}
				checkBudgetError(t, err, tokenpace.BudgetError{Target: "big", Phase: tokenpace.PhaseTTFT, Limit: 300 * msec, Observed: 300 * msec})
				if got, want := kinds(tm), []tokenpace.AttemptKind{tokenpace.AttemptFirst}; !slices.Equal(got, want) {
					t.Errorf("kinds = %v, want %v", got, want)
				}
				if tm.API != tt.api || tm.E2E() != 300*msec {
					t.Errorf("API, E2E() = %q, %v, want %q, 300ms", tm.API, tm.E2E(), tt.api)
				}
			})
		})
	}
}

// A non-streaming response that calls a function answers the call: the
// call is its output, so the route wins, and the caller gets the call.
func TestRouterNewResponseFunctionCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router(t, tokenpace.Policy{}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 10 * msec}), withWeather(),
		}, route("big"), route("small"))
		params := respond("big", 100)
		params.Tools = []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "get_weather"}}}
		var tm *tokenpace.Timing
		res, err := r.NewResponse(context.Background(), params, tokenpace.WithTimingInto(&tm))
		if err != nil {
			t.Fatalf("NewResponse() error = %v", err)
		}
		if len(res.Output) != 1 || res.Output[0].Type != "function_call" || res.Output[0].Name != "get_weather" ||
			res.Output[0].Arguments.OfString != `{"city":"Paris"}` {
			t.Errorf("output = %+v, want one get_weather call with its arguments", res.Output)
		}
		if got, want := outcomes(tm), []tokenpace.Outcome{tokenpace.OutcomeWon}; !slices.Equal(got, want) || tm.OutputTokens != 5 {
			t.Errorf("outcomes = %v, output tokens %d; want %v, 5", got, tm.OutputTokens, want)
		}
	})
}

// TestRouterNewNotJSON: a 200 whose body is not the API's (a proxy's
// HTML page) ends a non-streaming call with KindContentType, as it ends a
// stream.
func TestRouterNewNotJSON(t *testing.T) {
	_, r := oneRoute(t)
	html := option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if err != nil {
			return res, err
		}
		res.Body.Close()
		res.Header.Set("Content-Type", "text/html; charset=utf-8")
		res.Body = io.NopCloser(strings.NewReader("<html><body>Gateway login</body></html>"))
		return res, nil
	})
	_, err := r.New(context.Background(), chat("m", 10), html)
	var se *tokenpace.StreamError
	if !errors.As(err, &se) || se.Kind != tokenpace.KindContentType || se.Detail != "text/html; charset=utf-8" {
		t.Errorf("New() error = %v, want a KindContentType *StreamError naming text/html", err)
	}
}

// A Client's non-streaming calls of every API: the response as the API
// sends it, and its Timing through WithTimingInto, on virtual time; a
// failed call hands over its Timing too, with the error.
func TestClientNewEveryAPI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := simClient(t, []simulate.Option{simulate.WithModel("m", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond})})
		ctx := context.Background()
		tests := []struct {
			api  tokenpace.API
			call func(opts ...option.RequestOption) (string, error)
		}{
			{tokenpace.APIChat, func(opts ...option.RequestOption) (string, error) {
				res, err := c.New(ctx, chat("m", 5), opts...)
				if err != nil {
					return "", err
				}
				return res.Choices[0].Message.Content, nil
			}},
			{tokenpace.APICompletions, func(opts ...option.RequestOption) (string, error) {
				res, err := c.NewCompletion(ctx, complete("m", 5), opts...)
				if err != nil {
					return "", err
				}
				return res.Choices[0].Text, nil
			}},
			{tokenpace.APIResponses, func(opts ...option.RequestOption) (string, error) {
				res, err := c.NewResponse(ctx, respond("m", 5), opts...)
				if err != nil {
					return "", err
				}
				return res.OutputText(), nil
			}},
		}
		for _, tt := range tests {
			var tm *tokenpace.Timing
			text, err := tt.call(tokenpace.WithTimingInto(&tm))
			if err != nil || text == "" {
				t.Fatalf("%q: New = %q, %v; want text", tt.api, text, err)
			}
			// The whole response: the first token at 100 ms, four more 10 ms
			// apart.
			if tm == nil || tm.API != tt.api || tm.E2E() != 140*time.Millisecond || tm.OutputTokens != 5 || tm.Stream {
				t.Errorf("%q: Timing = %+v, want API %q, E2E 140ms, 5 output tokens, not streamed", tt.api, tm, tt.api)
			}
			tm = nil
			if _, err := tt.call(withFault("503"), tokenpace.WithTimingInto(&tm)); err == nil || tm == nil || tm.Err != err {
				t.Errorf("%q: failed call = %v, Timing %+v; want the error in both", tt.api, err, tm)
			}
		}
	})
}

// TestClientNewContentParts: a whole response whose message content is an
// array of parts (Mistral's reasoning models) gives the caller its text
// parts as the content and its thinking as reasoning_content, not the
// array's JSON as the text.
func TestClientNewContentParts(t *testing.T) {
	url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"2b9c","object":"chat.completion","created":1764800000,"model":"magistral-medium-2509",`+
			`"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":[`+
			`{"type":"thinking","thinking":[{"type":"text","text":"The user greets."}]},{"type":"text","text":"Hello!"}]}}],`+
			`"usage":{"prompt_tokens":9,"completion_tokens":6,"total_tokens":15}}`)
	}))
	c := tokenpace.NewClient(openaiClient(url, hc))
	var tm *tokenpace.Timing
	res, err := c.New(context.Background(), chat("magistral-medium-2509", 64), tokenpace.WithTimingInto(&tm))
	if err != nil {
		t.Fatal(err)
	}
	m := res.Choices[0].Message
	if m.Content != "Hello!" || m.JSON.ExtraFields["reasoning_content"].Raw() != `"The user greets."` {
		t.Errorf("content %q, reasoning_content %s; want %q, %q", m.Content, m.JSON.ExtraFields["reasoning_content"].Raw(), "Hello!", "The user greets.")
	}
	if tm.OutputTokens != 6 || tm.FinishReason != "stop" {
		t.Errorf("Timing: %d output tokens, finish %q; want 6, stop", tm.OutputTokens, tm.FinishReason)
	}
}

// TestClientNewReasoningParts: Databricks answers a Claude model with
// thinking with a message whose content is a reasoning part, its words in
// summary[].text beside a signature, then a text part
// (docs.databricks.com machine-learning/model-serving/score-reason-models).
// The caller gets the text as the content and the thinking as
// reasoning_content; before, the content was the text alone and the
// thinking was lost.
func TestClientNewReasoningParts(t *testing.T) {
	url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"msg_bdrk_01","object":"chat.completion","created":1764800000,"model":"databricks-claude-sonnet-4-5",`+
			`"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":[`+
			`{"type":"reasoning","summary":[{"type":"summary_text","text":"Air scatters blue light most.","signature":"EqQBCkYI"}]},{"type":"text","text":"Rayleigh scattering."}]}}],`+
			`"usage":{"prompt_tokens":12,"completion_tokens":30,"total_tokens":42}}`)
	}))
	c := tokenpace.NewClient(openaiClient(url, hc))
	res, err := c.New(context.Background(), chat("databricks-claude-sonnet-4-5", 64))
	if err != nil {
		t.Fatal(err)
	}
	m := res.Choices[0].Message
	if m.Content != "Rayleigh scattering." || m.JSON.ExtraFields["reasoning_content"].Raw() != `"Air scatters blue light most."` {
		t.Errorf("content %q, reasoning_content %s; want %q, %q", m.Content, m.JSON.ExtraFields["reasoning_content"].Raw(), "Rayleigh scattering.", "Air scatters blue light most.")
	}
}

// TestNewAnsweredWithEventStream: servers that stream whatever the
// request says (unsloth's and mini-sglang's servers, Azure AI Foundry's
// DeepSeek deployments) answer a non-streaming call with an event stream.
// The Client and the Router give the caller the whole response the
// stream adds up to, its Timing the server's usage; a stream that cannot
// be a whole response fails as it would have streamed.
func TestNewAnsweredWithEventStream(t *testing.T) {
	ev := func(s string) string { return "data: " + s + "\n\n" }
	answer := ev(`{"id":"d3","object":"chat.completion.chunk","created":7,"model":"DeepSeek-V3","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel","tool_calls":null},"finish_reason":null,"matched_stop":null}]}`) +
		ev(`{"id":"d3","object":"chat.completion.chunk","created":7,"model":"DeepSeek-V3","choices":[{"index":0,"delta":{"role":null,"content":"lo!","tool_calls":null},"finish_reason":"stop","matched_stop":1}],"usage":{"prompt_tokens":6,"completion_tokens":3,"total_tokens":9}}`) +
		"data: [DONE]\n\n"
	for _, tc := range []struct {
		name, body string
		kind       tokenpace.ErrorKind // 0: the answer is whole
	}{
		{"whole", answer, 0},
		{"cut short", ev(`{"id":"d3","choices":[{"index":0,"delta":{"content":"Hel"}}]}`), tokenpace.KindTruncated},
		{"error event", ev(`{"id":"d3","choices":[{"index":0,"delta":{"content":"Hel"}}]}`) + ev(`{"error":{"message":"overloaded","type":"server_error"}}`), tokenpace.KindErrorEvent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, tc.body)
			}))
			c := tokenpace.NewClient(openaiClient(url, hc))
			r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, tokenpace.Route{Name: "first", Model: "DeepSeek-V3"})
			if err != nil {
				t.Fatal(err)
			}
			for who, call := range map[string]func(...option.RequestOption) (*openai.ChatCompletion, error){
				"Client": func(o ...option.RequestOption) (*openai.ChatCompletion, error) {
					return c.New(context.Background(), chat("DeepSeek-V3", 64), o...)
				},
				"Router": func(o ...option.RequestOption) (*openai.ChatCompletion, error) {
					return r.New(context.Background(), chat("DeepSeek-V3", 64), o...)
				},
			} {
				var tm *tokenpace.Timing
				res, err := call(tokenpace.WithTimingInto(&tm))
				if tc.kind != 0 {
					var se *tokenpace.StreamError
					if !errors.As(err, &se) || se.Kind != tc.kind {
						t.Errorf("%s: err = %v, want a *StreamError of %v", who, err, tc.kind)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", who, err)
				}
				if m := res.Choices[0].Message; m.Content != "Hello!" || res.Choices[0].FinishReason != "stop" || res.Usage.TotalTokens != 9 {
					t.Errorf("%s: %q, finish %q, usage %+v; want Hello!, stop, 9 tokens", who, m.Content, res.Choices[0].FinishReason, res.Usage)
				}
				if tm.OutputTokens != 3 || tm.PromptTokens != 6 || tm.Streaming.ContentType != "text/event-stream" {
					t.Errorf("%s: Timing tokens %d/%d, content type %q; want 6/3 and the server's text/event-stream", who, tm.PromptTokens, tm.OutputTokens, tm.Streaming.ContentType)
				}
			}
		})
	}
}

// TestNewResponseCutAtLimit: a whole Responses answer that a server calls
// completed though its output reached the request's max_output_tokens
// (Ollama's and llama.cpp's /v1/responses) reaches the caller as cut
// there, streamed or assembled from an event stream.
func TestNewResponseCutAtLimit(t *testing.T) {
	const res = `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"m","incomplete_details":null,` +
		`"output":[{"id":"msg_1","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Packets wait in","annotations":[]}]}],` +
		`"usage":{"input_tokens":5,"input_tokens_details":{"cached_tokens":0},"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":%d}}`
	for _, tc := range []struct {
		name   string
		output int
		stream bool
		want   string
	}{
		{"at the limit", 8, false, "max_output_tokens"},
		{"under the limit", 7, false, "stop"},
		{"over the limit (a server that did not apply it)", 9, false, "stop"},
		{"at the limit, answered with an event stream", 8, true, "max_output_tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := fmt.Sprintf(res, tc.output, tc.output+5)
			url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.stream {
					w.Header().Set("Content-Type", "text/event-stream")
					_, _ = io.WriteString(w, `data: {"type":"response.output_text.delta","item_id":"msg_1","delta":"Packets wait in"}`+"\n\n"+
						`data: {"type":"response.completed","response":`+body+"}\n\n")
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, body)
			}))
			c := tokenpace.NewClient(openaiClient(url, hc))
			var tm *tokenpace.Timing
			got, err := c.NewResponse(context.Background(), respond("m", 8), tokenpace.WithTimingInto(&tm))
			if err != nil {
				t.Fatal(err)
			}
			if got.OutputText() != "Packets wait in" || tm == nil || tm.FinishReason != tc.want {
				t.Errorf("NewResponse() = %q, finish %q; want %q, finish %q", got.OutputText(), tm.FinishReason, "Packets wait in", tc.want)
			}
		})
	}
}

// A whole answer whose tool calls come without a type (Mistral's models
// on Azure AI Foundry) still gives them back in the next request:
// openai-go's ToParam would send each as null.
func TestWholeToolCallWithoutType(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, jsonAnswer(`{"id":"c","object":"chat.completion","created":1,"model":"mistral-large-2411","choices":[{"index":0,"message":{"role":"assistant","content":"","tool_calls":[{"id":"Xk9QwA1bC","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]},"finish_reason":"tool_calls"}]}`))
		res, err := tokenpace.NewClient(openaiClient(url, hc)).New(context.Background(), chat("mistral-large-2411", 8))
		if err != nil {
			t.Fatal(err)
		}
		calls := res.Choices[0].Message.ToParam().OfAssistant.ToolCalls
		if len(calls) != 1 || calls[0].OfFunction == nil || calls[0].OfFunction.Function.Name != "get_weather" || calls[0].OfFunction.ID != "Xk9QwA1bC" {
			t.Errorf("ToParam() tool calls = %+v, want get_weather's call", calls)
		}
	})
}
