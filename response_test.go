package tokenpace_test

import (
	"context"
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

// respond returns streaming Responses params for model.
func respond(model string, maxTokens int) responses.ResponseNewParams {
	return responses.ResponseNewParams{
		Model:           model,
		Input:           responses.ResponseNewParamsInputUnion{OfString: openai.String("Tell me about latency.")},
		MaxOutputTokens: openai.Int(int64(maxTokens)),
	}
}

// readResponse reads s to its end and returns its event types, the text
// of its output_text deltas and their arrival offsets from start.
func readResponse(s *tokenpace.Stream[responses.ResponseStreamEventUnion], start time.Time) (types []string, text string, at []time.Duration) {
	for s.Next() {
		ev := s.Current()
		types = append(types, ev.Type)
		if ev.Type == "response.output_text.delta" {
			text += ev.Delta
			at = append(at, time.Since(start))
		}
	}
	s.Close()
	return types, text, at
}

// A response streams openai-go's events and is timed as chat is: TTFT to
// the first output delta, usage from response.completed, a clean end
// when the body ends after it.
func TestResponseStreaming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec record
		c := simClient(t, []simulate.Option{
			simulate.WithModel("m", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond}),
			replyWords(3),
		}, tokenpace.WithHooks(rec.hooks()))
		start := time.Now()
		s := c.NewResponseStreaming(context.Background(), respond("m", 10))
		types, text, at := readResponse(s, start)
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		if want := []time.Duration{100 * time.Millisecond, 110 * time.Millisecond, 120 * time.Millisecond}; text != words(1, 3) || fmt.Sprint(at) != fmt.Sprint(want) {
			t.Errorf("text = %q at %v, want %q at %v", text, at, words(1, 3), want)
		}
		if s.Text() != words(1, 3) {
			t.Errorf("Text() = %q, want %q", s.Text(), words(1, 3))
		}
		if types[0] != "response.created" || types[len(types)-1] != "response.completed" {
			t.Errorf("event types = %v, want response.created ... response.completed", types)
		}
		tm := s.Timing()
		if tm.TTFT() != 100*time.Millisecond || len(tm.Chunks) != 3 || tm.TPOT() != 10*time.Millisecond {
			t.Errorf("TTFT, chunks, TPOT = %v, %d, %v, want 100ms, 3, 10ms", tm.TTFT(), len(tm.Chunks), tm.TPOT())
		}
		if !tm.UsageReported || tm.OutputTokens != 3 || tm.FinishReason != "stop" || tm.ResponseModel != "m" {
			t.Errorf("usage reported %v, output %d, finish %q, response model %q; want true, 3, stop, m",
				tm.UsageReported, tm.OutputTokens, tm.FinishReason, tm.ResponseModel)
		}
		if tm.API != tokenpace.APIResponses {
			t.Errorf("API = %q, want %q", tm.API, tokenpace.APIResponses)
		}
		if len(rec.done) != 1 || rec.done[0] != tm {
			t.Errorf("Done hook saw %d timings, want the stream's one", len(rec.done))
		}
	})
}

// A response cut by max_output_tokens ends cleanly with
// response.incomplete, its reason as the finish reason.
func TestResponseStreamingIncomplete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := simClient(t, []simulate.Option{
			simulate.WithModel("m", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond}), replyWords(10),
		})
		s := c.NewResponseStreaming(context.Background(), respond("m", 4))
		types, text, _ := readResponse(s, time.Now())
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		tm := s.Timing()
		if text != words(1, 4) || types[len(types)-1] != "response.incomplete" || tm.FinishReason != "max_output_tokens" || tm.OutputTokens != 4 {
			t.Errorf("text %q, last event %s, finish %q, output tokens %d; want %q, response.incomplete, max_output_tokens, 4",
				text, types[len(types)-1], tm.FinishReason, tm.OutputTokens, words(1, 4))
		}
	})
}

// The stream's faults reach the caller typed: an error event as
// KindErrorEvent wrapping the event's code, a body that ends before
// response.completed as KindTruncated; the text before stays readable.
func TestResponseStreamingFaults(t *testing.T) {
	tests := []struct {
		fault string
		kind  tokenpace.ErrorKind
	}{
		{"error-event;after=2", tokenpace.KindErrorEvent},
		{"truncated;after=2", tokenpace.KindTruncated},
		{"malformed;after=2", tokenpace.KindMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := simClient(t, []simulate.Option{
					simulate.WithModel("m", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond}), replyWords(5),
				})
				s := c.NewResponseStreaming(context.Background(), respond("m", 10), withFault(tt.fault))
				_, text, _ := readResponse(s, time.Now())
				se := checkKind(t, s.Err(), tt.kind)
				if tt.kind == tokenpace.KindErrorEvent {
					var apiErr *openai.Error
					if !errorsAs(se, &apiErr) || apiErr.Code != "server_error" {
						t.Errorf("Err() = %v, want one wrapping an *openai.Error with code server_error", se)
					}
				}
				if text != words(1, 2) || len(s.Timing().Chunks) != 2 {
					t.Errorf("text = %q, %d chunks, want %q, 2", text, len(s.Timing().Chunks), words(1, 2))
				}
			})
		})
	}
}

// A function call is output: TTFT runs to its first arguments delta.
func TestResponseStreamingFunctionCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := simClient(t, []simulate.Option{
			simulate.WithModel("m", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond}),
			simulate.WithToolCalls(func(simulate.ReplyInfo) []simulate.ToolCall {
				return []simulate.ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris"}`}}
			}),
		})
		params := respond("m", 100)
		params.Tools = []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "get_weather"}}}
		s := c.NewResponseStreaming(context.Background(), params)
		start := time.Now()
		var args string
		var first time.Duration
		for s.Next() {
			if ev := s.Current(); ev.Type == "response.function_call_arguments.delta" {
				if args == "" {
					first = time.Since(start)
				}
				args += ev.Delta
			}
		}
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		tm := s.Timing()
		if args != `{"city":"Paris"}` || tm.TTFT() != first || len(tm.Chunks) == 0 {
			t.Errorf("arguments %q, TTFT %v, first arguments delta at %v, %d chunks; want the call's arguments, TTFT at the first delta",
				args, tm.TTFT(), first, len(tm.Chunks))
		}
	})
}

// A Router response under each policy: what the caller reads, the
// attempts' outcomes, and the caller's TTFT.
func TestRouterResponseStreaming(t *testing.T) {
	testRouterPolicies(t, tokenpace.APIResponses, func(r *tokenpace.Router) (routedStream, string) {
		s := r.NewResponseStreaming(context.Background(), respond("big", 10))
		_, text, _ := readResponse(s, time.Now())
		return s, text
	})
}

// A response that stalls is continued on the next route: the input, the
// text so far as an assistant message and the continue prompt, with
// max_output_tokens reduced by the tokens delivered.
func TestRouterResponseContinuation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var body []byte
		capture := captureBody(&body)
		big := route("big")
		big.Options = []option.RequestOption{option.WithHeader(simulate.FaultHeader, "stall;for=5s;after=20")}
		small := route("small")
		small.Options = []option.RequestOption{capture}
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Continue: true}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 20 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) {
				if ri.Model == "big" {
					return words(1, 60), true
				}
				return words(21, 60), true
			}),
		}, big, small)
		s := r.NewResponseStreaming(context.Background(), respond("big", 40))
		_, text, _ := readResponse(s, time.Now())
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		if want := words(1, 40); text != want {
			t.Errorf("text = %q, want %q (max_output_tokens 40 over both routes)", text, want)
		}
		for _, want := range []string{`"role":"user"`, `"content":"Tell me about latency."`, `"role":"assistant"`,
			`"content":"` + words(1, 20) + `"`, `"max_output_tokens":20`, "Continue exactly where"} {
			if !strings.Contains(string(body), want) {
				t.Errorf("continuation request lacks %s:\n%s", want, body)
			}
		}
		tm := s.Timing()
		if got, want := kinds(tm), []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptContinuation}; !slices.Equal(got, want) {
			t.Errorf("kinds = %v, want %v", got, want)
		}
		if len(tm.Chunks) != 40 || tm.OutputTokens != 40 {
			t.Errorf("chunks, output tokens = %d, %d, want 40, 40", len(tm.Chunks), tm.OutputTokens)
		}
	})
}

// TestResponseStreamingNestedErrorEvent: OpenAI's and Azure's servers send
// a Responses error event with its code and message nested in an "error"
// object (openai/openai-dotnet#881), not at the event's top level as the
// API reference documents: the caller's KindErrorEvent wraps them all the
// same, the text before kept.
func TestResponseStreamingNestedErrorEvent(t *testing.T) {
	body := "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"output\":[]}}\n\n" +
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":1,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"Hel\"}\n\n" +
		"event: error\ndata: {\"type\":\"error\",\"sequence_number\":2,\"error\":{\"type\":\"too_many_requests\",\"code\":\"too_many_requests\",\"message\":\"Too Many Requests\",\"param\":null}}\n\n"
	url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	}))
	c := tokenpace.NewClient(openaiClient(url, hc))
	s := c.NewResponseStreaming(context.Background(), respond("m", 10))
	got := readResponseStream(s)
	se := checkKind(t, got.err, tokenpace.KindErrorEvent)
	var apiErr *openai.Error
	if !errorsAs(se, &apiErr) || apiErr.Code != "too_many_requests" || apiErr.Message != "Too Many Requests" || se.Detail != "too_many_requests" {
		t.Errorf("Err() = %v (detail %q), want one wrapping an *openai.Error with code too_many_requests and its message", se, se.Detail)
	}
	if got.text != "Hel" {
		t.Errorf("text %q, want Hel", got.text)
	}
}
