package tokenpace_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// withWeather scripts every reply as a call of get_weather.
func withWeather() simulate.Option {
	return simulate.WithToolCalls(func(simulate.ReplyInfo) []simulate.ToolCall {
		return []simulate.ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris"}`}}
	})
}

// chatWithTools returns chat params that offer get_weather.
func chatWithTools(model string) openai.ChatCompletionNewParams {
	p := chat(model, 100)
	p.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "get_weather"})}
	return p
}

// A tool call is output: TTFT runs to its first delta, and the caller
// rebuilds the call from the stream.
func TestToolCallTTFT(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := simClient(t, []simulate.Option{
			simulate.WithModel("m", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond}), withWeather(),
		})
		start := time.Now()
		s := c.NewStreaming(context.Background(), chatWithTools("m"))
		var first time.Duration
		for s.Next() {
			if ch := s.Current().Choices; first == 0 && len(ch) > 0 && len(ch[0].Delta.ToolCalls) > 0 {
				first = time.Since(start)
			}
		}
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		tm := s.Timing()
		if first != 100*time.Millisecond || tm.TTFT() != first {
			t.Errorf("first tool-call delta at %v, TTFT() = %v, want both 100ms", first, tm.TTFT())
		}
		call := s.Accumulated().Choices[0].Message.ToolCalls
		if len(call) != 1 || call[0].Function.Name != "get_weather" || call[0].Function.Arguments != `{"city":"Paris"}` {
			t.Errorf("tool calls = %+v, want one get_weather call with its arguments", call)
		}
	})
}

// toolRead is what a caller of a chat stream with tool calls read: the
// calls it rebuilt from the deltas (dropping them when Restarted said so),
// how many call starts it read in all, and at which chunks (counted from
// 0) Restarted was true.
type toolRead struct {
	calls    map[int64]*openai.ChatCompletionMessageToolCallUnion
	starts   int
	restarts []int
}

// readTools reads s to its end as a caller that rebuilds tool calls from
// the deltas does.
func readTools(s *tokenpace.Stream[openai.ChatCompletionChunk]) toolRead {
	r := toolRead{calls: map[int64]*openai.ChatCompletionMessageToolCallUnion{}}
	for i := 0; s.Next(); i++ {
		if s.Restarted() {
			r.restarts = append(r.restarts, i)
			clear(r.calls)
		}
		for _, ch := range s.Current().Choices {
			for _, tc := range ch.Delta.ToolCalls {
				c := r.calls[tc.Index]
				if c == nil {
					c = new(openai.ChatCompletionMessageToolCallUnion)
					r.calls[tc.Index] = c
				}
				if tc.Function.Name != "" {
					r.starts++
					c.ID, c.Function.Name = tc.ID, tc.Function.Name
				}
				c.Function.Arguments += tc.Function.Arguments
			}
		}
	}
	s.Close()
	return r
}

// A Router stream that breaks after it handed the caller a tool-call
// delta is restarted on the next route, and the caller told: Restarted on
// the first chunk of the restarted output, Accumulated holding the
// restarted route's call only, whole and once, the caller's TTFT (to the
// first token it read) and E2E, Err nil. Without Continue, or with no
// route left, the call ends with the breach, its call incomplete. A
// stream that fails before any output falls back as usual.
func TestToolCallRestart(t *testing.T) {
	stall := func(after int) option.RequestOption {
		return option.WithHeader(simulate.FaultHeader, "stall;for=5s;after="+strconv.Itoa(after))
	}
	gap := &tokenpace.BudgetError{Target: "big", Phase: tokenpace.PhaseGap, Limit: 100 * msec, Observed: 100 * msec}
	tests := []struct {
		name     string
		cont     bool
		calls    int  // 1: get_weather for Paris; 2: then for London
		after    int  // output chunks big sends before it stalls
		alone    bool // big is the only route
		kinds    []tokenpace.AttemptKind
		restarts []int
		starts   int
		ttft     time.Duration
		e2e      time.Duration
		err      *tokenpace.BudgetError
	}{
		{name: "break inside the call", cont: true, calls: 1, after: 2,
			kinds: []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptRestart}, restarts: []int{3}, starts: 2,
			ttft: 100 * msec, e2e: 310 * msec},
		{name: "break after a whole call", cont: true, calls: 2, after: 5,
			kinds: []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptRestart}, restarts: []int{6}, starts: 3,
			ttft: 100 * msec, e2e: 430 * msec},
		{name: "break before any output", cont: true, calls: 1, after: 0,
			kinds: []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptFallback}, starts: 1,
			ttft: 1050 * msec, e2e: 1090 * msec},
		{name: "without Continue", calls: 1, after: 2,
			kinds: []tokenpace.AttemptKind{tokenpace.AttemptFirst}, starts: 1, ttft: 100 * msec, e2e: 220 * msec, err: gap},
		{name: "no route left", cont: true, calls: 1, after: 2, alone: true,
			kinds: []tokenpace.AttemptKind{tokenpace.AttemptFirst}, starts: 1, ttft: 100 * msec, e2e: 220 * msec, err: gap},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				big := route("big")
				big.Options = []option.RequestOption{stall(tt.after)}
				routes := []tokenpace.Route{big, route("small")}
				if tt.alone {
					routes = routes[:1]
				}
				r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: time.Second, Gap: 100 * msec}, Continue: tt.cont}, []simulate.Option{
					simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 20 * msec}),
					simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
					simulate.WithToolCalls(func(simulate.ReplyInfo) []simulate.ToolCall {
						return []simulate.ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris"}`},
							{Name: "get_weather", Arguments: `{"city":"London"}`}}[:tt.calls]
					}),
				}, routes...)
				s := r.NewStreaming(context.Background(), chatWithTools("big"))
				got := readTools(s)
				tm := s.Timing()
				if !slices.Equal(got.restarts, tt.restarts) || got.starts != tt.starts {
					t.Errorf("Restarted() at chunks %v, %d call starts read; want %v, %d", got.restarts, got.starts, tt.restarts, tt.starts)
				}
				if k := kinds(tm); !slices.Equal(k, tt.kinds) {
					t.Errorf("kinds = %v, want %v", k, tt.kinds)
				}
				if tm.TTFT() != tt.ttft || tm.E2E() != tt.e2e {
					t.Errorf("TTFT(), E2E() = %v, %v, want %v, %v", tm.TTFT(), tm.E2E(), tt.ttft, tt.e2e)
				}
				acc := s.Accumulated().Choices[0].Message.ToolCalls
				if tt.err != nil {
					checkBudgetError(t, s.Err(), *tt.err)
					if len(acc) != 1 || acc[0].Function.Arguments == `{"city":"Paris"}` {
						t.Errorf("accumulated calls = %+v, want one, incomplete", acc)
					}
					return
				}
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				want := []string{`{"city":"Paris"}`, `{"city":"London"}`}[:tt.calls]
				if len(acc) != len(want) || len(got.calls) != len(want) {
					t.Fatalf("accumulated calls = %+v, rebuilt %d; want %d whole calls", acc, len(got.calls), len(want))
				}
				for i, args := range want {
					c := got.calls[int64(i)]
					if acc[i].Function.Name != "get_weather" || acc[i].Function.Arguments != args || c.ID != acc[i].ID || c.Function.Arguments != args {
						t.Errorf("call %d: accumulated %+v, rebuilt %+v; want get_weather %s in both", i, acc[i], *c, args)
					}
				}
				if last := tm.Attempts[len(tm.Attempts)-1]; last.Target != "small" || last.Outcome != tokenpace.OutcomeWon {
					t.Errorf("last attempt = %s %s, want small won", last.Target, last.Outcome)
				}
			})
		})
	}
}

// A hedged attempt that lost never reaches the caller, tool calls
// included: the caller reads the winner's call only, once, whether the
// loser was stopped before its first token or produced its call's first
// delta at the same instant as the winner.
func TestToolCallHedgeLoser(t *testing.T) {
	tests := []struct {
		name      string
		hedge     time.Duration
		smallTTFT time.Duration
		ttft      time.Duration
	}{
		{"loser stopped before its first token", 20 * msec, 50 * msec, 70 * msec},
		{"both call at once", 50 * msec, 50 * msec, 100 * msec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := router(t, tokenpace.Policy{Hedge: tokenpace.Hedge{After: tt.hedge}, Continue: true}, []simulate.Option{
					simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 5 * msec}),
					simulate.WithModel("small", &simulate.Fixed{TTFT: tt.smallTTFT, ITL: 10 * msec}),
					withWeather(),
				}, route("big"), route("small"))
				s := r.NewStreaming(context.Background(), chatWithTools("big"))
				got := readTools(s)
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				tm := s.Timing()
				if got.starts != 1 || len(got.restarts) != 0 {
					t.Errorf("%d call starts read, Restarted() at %v; want 1, never", got.starts, got.restarts)
				}
				acc := s.Accumulated().Choices[0].Message.ToolCalls
				if len(acc) != 1 || acc[0].Function.Arguments != `{"city":"Paris"}` || acc[0].ID != got.calls[0].ID {
					t.Errorf("accumulated calls = %+v, want the one whole call read", acc)
				}
				o := outcomes(tm)
				slices.Sort(o)
				if want := []tokenpace.Outcome{tokenpace.OutcomeHedgeLost, tokenpace.OutcomeWon}; !slices.Equal(o, want) {
					t.Errorf("outcomes = %v, want %v in some order", o, want)
				}
				if tm.TTFT() != tt.ttft {
					t.Errorf("TTFT() = %v, want %v", tm.TTFT(), tt.ttft)
				}
			})
		})
	}
}

// A Responses stream that breaks inside a function call restarts on the
// next route: the caller, told by Restarted on the first event of the new
// response, rebuilds the call's arguments once.
func TestResponseToolCallRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := stallingRouter(t, 2, simulate.Fixed{TTFT: 100 * msec, ITL: 20 * msec}, simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec},
			withWeather())
		params := respond("big", 100)
		params.Tools = []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "get_weather"}}}
		s := r.NewResponseStreaming(context.Background(), params)
		var args, restartedAt string
		items, restarts := 0, 0
		for s.Next() {
			ev := s.Current()
			if s.Restarted() {
				restarts++
				restartedAt, args, items = ev.Type, "", 0
			}
			switch ev.Type {
			case "response.output_item.added":
				items++
			case "response.function_call_arguments.delta":
				args += ev.Delta
			}
		}
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		if restarts != 1 || restartedAt != "response.output_item.added" {
			t.Errorf("Restarted() %d times, at %q; want once, at response.output_item.added (the new response's created and in_progress are not passed on)", restarts, restartedAt)
		}
		if args != `{"city":"Paris"}` || items != 1 {
			t.Errorf("arguments %q over %d items, want the whole call's in 1", args, items)
		}
		tm := s.Timing()
		if k, want := kinds(tm), []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptRestart}; !slices.Equal(k, want) {
			t.Errorf("kinds = %v, want %v", k, want)
		}
		if tm.TTFT() != 120*msec {
			t.Errorf("TTFT() = %v, want 120ms (the first arguments delta the caller read)", tm.TTFT())
		}
	})
}

// After a restart, the output the caller keeps starts over: a
// continuation of the restarted output carries its text only, and takes
// only its tokens off max_tokens. Here the first route breaks inside a
// call, the second answers with text and stalls after 20 tokens, and the
// third continues those 20.
func TestContinuationAfterRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var body []byte
		capture := captureBody(&body)
		big, mid, small := route("big"), route("mid"), route("small")
		big.Options = []option.RequestOption{withFault("stall;for=5s;after=2")}
		mid.Options = []option.RequestOption{withFault("stall;for=5s;after=20")}
		small.Options = []option.RequestOption{capture}
		r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Continue: true}, []simulate.Option{
			simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 20 * msec}),
			simulate.WithModel("mid", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			simulate.WithModel("small", &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}),
			simulate.WithToolCalls(func(ri simulate.ReplyInfo) []simulate.ToolCall {
				if ri.Model != "big" {
					return nil
				}
				return []simulate.ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris"}`}}
			}),
			simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) {
				if ri.Model == "small" {
					return words(21, 60), true
				}
				return words(1, 60), true
			}),
		}, big, mid, small)
		s := r.NewStreaming(context.Background(), chatWithTools("big"))
		got := readTools(s)
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		if len(got.restarts) != 1 || len(got.calls) != 0 {
			t.Errorf("Restarted() at %v, %d calls kept; want once, none", got.restarts, len(got.calls))
		}
		msg := s.Accumulated().Choices[0].Message
		if want := words(1, 60); msg.Content != want || len(msg.ToolCalls) != 0 {
			t.Errorf("accumulated content %q, %d calls; want %q, none", msg.Content, len(msg.ToolCalls), want)
		}
		for _, want := range []string{`"content":"` + words(1, 20) + `"`, `"max_tokens":80`} {
			if !bytes.Contains(body, []byte(want)) {
				t.Errorf("continuation request lacks %s:\n%s", want, body)
			}
		}
		want := []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptRestart, tokenpace.AttemptContinuation}
		if k := kinds(s.Timing()); !slices.Equal(k, want) {
			t.Errorf("kinds = %v, want %v", k, want)
		}
	})
}

// A restart or continuation that ends cleanly without any output leaves
// the caller with the broken output it had read (a restart's tool call
// incomplete) and nothing to replace or complete it: the call ends with an
// error, never with a nil Err over an incomplete output.
func TestCarryOnWithoutOutput(t *testing.T) {
	for _, tt := range []struct {
		name   string
		tools  bool
		params openai.ChatCompletionNewParams
		kind   tokenpace.AttemptKind
	}{
		{"restart", true, chatWithTools("big"), tokenpace.AttemptRestart},
		{"continuation", false, chat("big", 100), tokenpace.AttemptContinuation},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				empty := openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("x"),
					option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: bodyTransport{"data: [DONE]\n\n"}}))
				big := route("big")
				big.Options = []option.RequestOption{option.WithHeader(simulate.FaultHeader, "stall;for=5s;after=2")}
				small := route("small")
				small.Client = &empty
				sopts := []simulate.Option{simulate.WithModel("big", &simulate.Fixed{TTFT: 100 * msec, ITL: 20 * msec}), replyWords(20)}
				if tt.tools {
					sopts = append(sopts, withWeather())
				}
				r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: time.Second, Gap: 100 * msec}, Continue: true}, sopts, big, small)
				s := r.NewStreaming(context.Background(), tt.params)
				got := readTools(s)
				if len(got.restarts) != 0 {
					t.Errorf("Restarted() at chunks %v, want none", got.restarts)
				}
				var se *tokenpace.StreamError
				if err := s.Err(); !errorsAs(err, &se) || se.Target != "small" || se.Kind != tokenpace.KindTruncated {
					t.Fatalf("Err() = %v, want a *StreamError of small, KindTruncated", err)
				}
				if k := kinds(s.Timing()); !slices.Equal(k, []tokenpace.AttemptKind{tokenpace.AttemptFirst, tt.kind}) {
					t.Errorf("kinds = %v, want first, %s", k, tt.kind)
				}
				if err := s.Timing().Err; err != s.Err() {
					t.Errorf("Timing().Err = %v, want %v", err, s.Err())
				}
			})
		})
	}
}

// A continuation of a restarted output carries that output only, not the
// text before the restart, even when the caller had taken all of it
// before the restart's first token. Here big writes text, then a tool
// call, and stalls; mid restarts with text and stalls; small continues.
func TestContinuationAfterRestartDropsOldText(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const head = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":`
		var cont []byte
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var p struct{ Model string }
			_ = json.Unmarshal(body, &p)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			rc := http.NewResponseController(w)
			send := func(delta string) {
				time.Sleep(10 * time.Millisecond)
				_, _ = w.Write([]byte(head + delta + `,"finish_reason":null}]}` + "\n\n"))
				_ = rc.Flush()
			}
			switch p.Model {
			case "big":
				send(`{"role":"assistant","content":"DROPPED "}`)
				send(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}`)
			case "mid":
				send(`{"role":"assistant","content":"kept1 "}`)
				send(`{"content":"kept2 "}`)
			default:
				cont = body
				send(`{"content":"more"}`)
				_, _ = w.Write([]byte(head + `{},"finish_reason":"stop"}]}` + "\n\n" + "data: [DONE]\n\n"))
				return
			}
			<-r.Context().Done() // stall
		})
		url, hc := serve(t, h)
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)),
			tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Continue: true},
			route("big"), route("mid"), route("small"))
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewStreaming(context.Background(), chat("big", 100))
		text := readAll(t, s)
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		want := []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptRestart, tokenpace.AttemptContinuation}
		if k := kinds(s.Timing()); !slices.Equal(k, want) {
			t.Errorf("kinds = %v, want %v", k, want)
		}
		if bytes.Contains(cont, []byte("DROPPED")) || !bytes.Contains(cont, []byte("kept1 kept2 ")) {
			t.Errorf("continuation request = %s, want the restarted text only", cont)
		}
		if got := s.Accumulated().Choices[0].Message.Content; got != "kept1 kept2 more" {
			t.Errorf("Accumulated content = %q, read %q; want %q", got, text, "kept1 kept2 more")
		}
	})
}
