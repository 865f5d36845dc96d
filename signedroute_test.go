package tokenpace_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// claudeToolLoop is a LiteLLM proxy in front of Claude with extended
// thinking, serving several models at one address, whose thinking
// signatures are bound to the model that made them
// (openclaw/openclaw#107221): a first turn (the user's question alone)
// thinks, signs its thinking "sig-" and the model, and calls get_weather
// (call id "toolu_" and the model); a request whose last assistant
// message made the call (its results follow, with perhaps a user message
// that LiteLLM merges into theirs) is refused with Anthropic's 400 unless
// that message starts with the model's own signed block ("Expected
// `thinking` or `redacted_thinking`, but found `tool_use`" without one,
// "Invalid `signature`" with another model's), and answered with the
// weather; any other turn (a new user message after an answer, whose
// earlier turns' blocks Claude takes or goes without) is answered with
// text. The first
// first turn of each model in hang waits unanswered until it is
// cancelled. asked records each request's model and the thinking_blocks
// signatures its messages carried.
type claudeToolLoop struct {
	mu    sync.Mutex
	hang  map[string]bool
	asked []string
}

func (s *claudeToolLoop) serve(t *testing.T) (string, *http.Client) {
	return serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, sigs, err := signedRequest(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		step := false // the last assistant message made calls: the tool loop goes on
		for _, m := range slices.Backward(req.Messages) {
			if m["role"] == "assistant" {
				step = len(listOf(m, "tool_calls")) > 0
				break
			}
		}
		s.mu.Lock()
		s.asked = append(s.asked, req.Model+" "+strings.Join(sigs, ","))
		hang := s.hang[req.Model] && len(req.Messages) == 1
		if hang {
			delete(s.hang, req.Model)
		}
		s.mu.Unlock()
		if hang {
			<-r.Context().Done()
			return
		}
		refuse := func(msg string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":%q,"type":null,"param":null,"code":"400"}}`,
				"litellm.BadRequestError: AnthropicException - "+msg)
		}
		for _, sig := range sigs {
			if sig != "sig-"+req.Model {
				refuse("messages.1.content.0: Invalid `signature` in `thinking` block")
				return
			}
		}
		if step && len(sigs) == 0 {
			refuse("messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block.")
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta, finish string) {
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":%q,\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", req.Model, delta, finish)
		}
		switch {
		case len(req.Messages) == 1:
			chunk(`{"role":"assistant","reasoning_content":"Weather.","thinking_blocks":[{"type":"thinking","thinking":"Weather.","signature":null}],"content":""}`, "null")
			chunk(`{"reasoning_content":"","thinking_blocks":[{"type":"thinking","thinking":"","signature":"sig-`+req.Model+`"}],"content":""}`, "null")
			chunk(`{"tool_calls":[{"index":0,"id":"toolu_`+req.Model+`","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`, "null")
			chunk(`{}`, `"tool_calls"`)
		case step:
			chunk(`{"role":"assistant","content":"Sunny in Paris, says `+req.Model+`."}`, `"stop"`)
		default:
			chunk(`{"role":"assistant","content":"Answer from `+req.Model+`."}`, `"stop"`)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
}

// requests returns the requests s was asked, each its model and the
// signatures given back, and forgets them.
func (s *claudeToolLoop) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.asked
	s.asked = nil
	return out
}

// toolLoopTurn is one turn of a tool loop as its caller sees it: the
// text, the routes its attempts went to, and the requests the server was
// asked (model and signatures given back), in order.
type toolLoopTurn struct {
	text     string
	err      error
	targets  []string
	requests []string
}

// streamTurn makes one streamed call of params on r and returns what the
// caller got, with the answer's message.
func streamTurn(t *testing.T, r *tokenpace.Router, srv *claudeToolLoop, params openai.ChatCompletionNewParams) (toolLoopTurn, openai.ChatCompletionMessage) {
	t.Helper()
	s := r.NewStreaming(context.Background(), params)
	drain(t, s, 0)
	got := toolLoopTurn{text: s.Text(), err: s.Err(), requests: srv.requests()}
	for _, a := range s.Timing().Attempts {
		got.targets = append(got.targets, a.Target)
	}
	var msg openai.ChatCompletionMessage
	if acc := s.Accumulated(); len(acc.Choices) > 0 {
		msg = acc.Choices[0].Message
	}
	return got, msg
}

// toolLoop runs the three turns of a tool loop on r: the question, which
// ends with a call; the call's result, followed by the messages after;
// a new user message.
func toolLoop(t *testing.T, r *tokenpace.Router, srv *claudeToolLoop, after ...openai.ChatCompletionMessageParamUnion) [3]toolLoopTurn {
	t.Helper()
	var turns [3]toolLoopTurn
	msgs := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris?")}
	turn, msg := streamTurn(t, r, srv, openai.ChatCompletionNewParams{Model: "claude", Messages: msgs})
	turns[0] = turn
	if len(msg.ToolCalls) != 1 {
		t.Fatalf("first turn: %d calls (Text %q, Err %v), want 1", len(msg.ToolCalls), turn.text, turn.err)
	}
	msgs = append(append(msgs, msg.ToParam(), openai.ToolMessage("18°C, clear", msg.ToolCalls[0].ID)), after...)
	turns[1], msg = streamTurn(t, r, srv, openai.ChatCompletionNewParams{Model: "claude", Messages: msgs})
	msgs = append(msgs, msg.ToParam(), openai.UserMessage("Thanks. And tomorrow?"))
	turns[2], _ = streamTurn(t, r, srv, openai.ChatCompletionNewParams{Model: "claude", Messages: msgs})
	return turns
}

// wantTurn checks one turn of a tool loop.
func wantTurn(t *testing.T, n int, got, want toolLoopTurn) {
	t.Helper()
	if got.err != nil || got.text != want.text {
		t.Errorf("turn %d: Text() = %q, Err() = %v, want %q", n, got.text, got.err, want.text)
	}
	if !slices.Equal(got.targets, want.targets) {
		t.Errorf("turn %d: attempts at %q, want %q", n, got.targets, want.targets)
	}
	if !slices.Equal(got.requests, want.requests) {
		t.Errorf("turn %d: requests (model, signatures given back) = %q, want %q", n, got.requests, want.requests)
	}
}

// TestSignedRouteToolResults checks a tool loop through a Router of two
// models of one LiteLLM proxy in front of Claude with thinking: the first
// route's model does not answer the question within its TTFT budget, the
// second's makes the call and signs its thinking; the call's result goes
// first to the second route, with its blocks, and is answered in one
// request (before: the first route's model refused it, 400, a wasted
// request, and the Router fell back); the next user message goes to the
// first route again. With Hedge and Probation the same; and with one
// model at two gateways, whose second signed the call; and with the
// image a tool returned sent in a user message after its result (as
// goose and Kimi Code send it: a tool message holds text alone).
func TestSignedRouteToolResults(t *testing.T) {
	budget := tokenpace.Budget{TTFT: 2 * time.Second}
	twoModels := []tokenpace.Route{{Name: "first", Model: "claude-opus"}, {Name: "second", Model: "claude-sonnet"}}
	twoGateways := []tokenpace.Route{{Name: "first", Model: "claude-sonnet"},
		{Name: "second", Model: "claude-sonnet", Options: []option.RequestOption{option.WithBaseURL("http://gateway-2.invalid/v1/")}}}
	image := openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
		openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "data:image/png;base64,iVBORw0KGgo="}),
	})
	for _, tc := range []struct {
		name   string
		p      tokenpace.Policy
		routes []tokenpace.Route
		after  []openai.ChatCompletionMessageParamUnion
	}{
		{"budget", tokenpace.Policy{Budget: budget}, twoModels, nil},
		{"hedge", tokenpace.Policy{Hedge: tokenpace.Hedge{After: time.Second}}, twoModels, nil},
		{"probation", tokenpace.Policy{Budget: budget, Probation: tokenpace.Probation{Tokens: 2}}, twoModels, nil},
		{"two gateways", tokenpace.Policy{Budget: budget}, twoGateways, nil},
		{"a tool's image after the result", tokenpace.Policy{Budget: budget}, twoModels, []openai.ChatCompletionMessageParamUnion{image}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a, b := tc.routes[0].Model, tc.routes[1].Model
				srv := &claudeToolLoop{hang: map[string]bool{a: true}}
				url, hc := srv.serve(t)
				r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tc.p, tc.routes...)
				if err != nil {
					t.Fatal(err)
				}
				turns := toolLoop(t, r, srv, tc.after...)
				wantTurn(t, 1, turns[0], toolLoopTurn{targets: []string{"first", "second"}, requests: []string{a + " ", b + " "}})
				wantTurn(t, 2, turns[1], toolLoopTurn{text: "Sunny in Paris, says " + b + ".", targets: []string{"second"},
					requests: []string{b + " sig-" + b}})
				wantTurn(t, 3, turns[2], toolLoopTurn{text: "Answer from " + a + ".", targets: []string{"first"},
					requests: []string{a + " "}})
			})
		})
	}
}

// TestSignedRouteBreakerOpen checks that the route whose model signed
// the call is tried first only as any route is: with its breaker open,
// the call's result goes to the other route, whose refusal ends the call
// as it did before, a request error with Anthropic's message.
func TestSignedRouteBreakerOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &claudeToolLoop{hang: map[string]bool{"claude-opus": true}}
		url, hc := srv.serve(t)
		br := &extBreaker{}
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 2 * time.Second}},
			tokenpace.Route{Name: "opus", Model: "claude-opus"}, tokenpace.Route{Name: "sonnet", Model: "claude-sonnet", Breaker: br})
		if err != nil {
			t.Fatal(err)
		}
		msgs := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris?")}
		_, msg := streamTurn(t, r, srv, openai.ChatCompletionNewParams{Model: "claude", Messages: msgs})
		if len(msg.ToolCalls) != 1 {
			t.Fatalf("first turn: %d calls, want 1", len(msg.ToolCalls))
		}
		br.mu.Lock()
		br.open = true
		br.mu.Unlock()
		msgs = append(msgs, msg.ToParam(), openai.ToolMessage("18°C, clear", msg.ToolCalls[0].ID))
		got, _ := streamTurn(t, r, srv, openai.ChatCompletionNewParams{Model: "claude", Messages: msgs})
		var ae *openai.Error
		if !errors.As(got.err, &ae) || ae.StatusCode != http.StatusBadRequest || !strings.Contains(ae.Message, "Expected `thinking`") {
			t.Errorf("Err() = %v, want Anthropic's 400 from the first route", got.err)
		}
		if want := []string{"sonnet", "opus"}; !slices.Equal(got.targets, want) {
			t.Errorf("attempts at %q, want %q: the signer's route first, skipped", got.targets, want)
		}
		if want := []string{"claude-opus "}; !slices.Equal(got.requests, want) {
			t.Errorf("requests = %q, want %q", got.requests, want)
		}
	})
}

// TestSignedRouteClient checks that a Client, which has one place to
// send to, sends the call's result to the model its caller names, as
// before: the model that did not sign the call refuses it.
func TestSignedRouteClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &claudeToolLoop{}
		url, hc := srv.serve(t)
		c := tokenpace.NewClient(openaiClient(url, hc))
		msgs := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris?")}
		s := c.NewStreaming(context.Background(), openai.ChatCompletionNewParams{Model: "claude-sonnet", Messages: msgs})
		drain(t, s, 0)
		msg := s.Accumulated().Choices[0].Message
		if len(msg.ToolCalls) != 1 {
			t.Fatalf("first turn: %d calls (Err %v), want 1", len(msg.ToolCalls), s.Err())
		}
		srv.requests()
		msgs = append(msgs, msg.ToParam(), openai.ToolMessage("18°C, clear", msg.ToolCalls[0].ID))
		s = c.NewStreaming(context.Background(), openai.ChatCompletionNewParams{Model: "claude-opus", Messages: msgs})
		drain(t, s, 0)
		checkKind(t, s.Err(), tokenpace.KindRequest)
		if got, want := srv.requests(), []string{"claude-opus "}; !slices.Equal(got, want) {
			t.Errorf("requests = %q, want %q", got, want)
		}
	})
}
