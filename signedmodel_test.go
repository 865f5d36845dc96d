package tokenpace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// signedByModel is a LiteLLM proxy in front of Claude with extended
// thinking, serving two models at one address, whose thinking signatures
// are bound to the model that made them, as Anthropic's are: a thinking
// block replayed to another model is refused with 400 "Invalid
// `signature` in `thinking` block" (openclaw/openclaw#107221,
// vybestack/llxprt-code#2335; ding113/claude-code-hub#518 for the
// message as relays pass it on). Each answer thinks, signs its thinking
// "sig-" and the model, and says which model answered; the first request
// of each model in fail is answered 503, and each of cut streams its
// thinking and "Hel" and breaks; every request of a model in hang waits,
// unanswered, until it is cancelled. asked records each request's model
// and the thinking_blocks signatures its assistant messages carried.
type signedByModel struct {
	fail, cut, hang map[string]bool
	// hung, when not nil, gets a token each time a request to a hanging
	// model arrives, and every other model's answer waits for one: a
	// hedge's loser is then always asked before its winner answers.
	hung  chan struct{}
	mu    sync.Mutex
	asked []string
}

// signedAsk is a chat request as the Claude relays of these tests read it.
type signedAsk struct {
	Model    string           `json:"model"`
	Messages []map[string]any `json:"messages"`
}

// signedRequest decodes r's chat request and the signatures of the
// thinking_blocks its messages give back, in order.
func signedRequest(r *http.Request) (signedAsk, []string, error) {
	var req signedAsk
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		return req, nil, err
	}
	var sigs []string
	for _, m := range req.Messages {
		for _, b := range listOf(m, "thinking_blocks") {
			sig, _ := b["signature"].(string)
			sigs = append(sigs, sig)
		}
	}
	return req, sigs, nil
}

func (s *signedByModel) serve(t *testing.T) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, sigs, err := signedRequest(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.asked = append(s.asked, req.Model+" "+strings.Join(sigs, ","))
		fail, cut, hang := s.fail[req.Model], s.cut[req.Model], s.hang[req.Model]
		delete(s.fail, req.Model)
		delete(s.cut, req.Model)
		s.mu.Unlock()
		if hang {
			if s.hung != nil {
				s.hung <- struct{}{}
			}
			<-r.Context().Done()
			return
		}
		if s.hung != nil {
			select {
			case <-s.hung:
			case <-r.Context().Done():
				return
			}
		}
		if fail {
			http.Error(w, `{"error":{"message":"overloaded","type":"server_error","code":"503"}}`, http.StatusServiceUnavailable)
			return
		}
		for _, sig := range sigs {
			if sig != "sig-"+req.Model {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, `{"error":{"message":"litellm.BadRequestError: AnthropicException - {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.1.content.0: Invalid `+"`signature` in `thinking`"+` block\"}}","type":null,"param":null,"code":"400"}}`)
				return
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta, finish string) {
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":%q,\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", req.Model, delta, finish)
		}
		chunk(`{"role":"assistant","reasoning_content":"Thinking.","thinking_blocks":[{"type":"thinking","thinking":"Thinking.","signature":null}],"content":""}`, "null")
		chunk(`{"reasoning_content":"","thinking_blocks":[{"type":"thinking","thinking":"","signature":"sig-`+req.Model+`"}],"content":""}`, "null")
		if cut {
			chunk(`{"content":"Hel"}`, "null")
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}
		chunk(`{"content":"Answer from `+req.Model+`."}`, `"stop"`)
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(ts.Close)
	return ts
}

// requests returns the requests s was asked, each its model and the
// signatures given back, and forgets them.
func (s *signedByModel) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.asked
	s.asked = nil
	return out
}

// nextTurn returns the conversation after answer, the first turn's
// message.
func nextTurn(model string, answer openai.ChatCompletionMessage) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{Model: model, Messages: []openai.ChatCompletionMessageParamUnion{
		openai.UserMessage("Hi"), answer.ToParam(), openai.UserMessage("And then?"),
	}}
}

// TestSignedBlocksStayWithTheirModel checks that the thinking a model
// signed goes back to that model only, when a Router's routes ask two
// models of one LiteLLM proxy: a turn the second route answered (after
// the first failed, or after it broke and the second carried the answer
// on) is sent next to the first route without the second's blocks, and
// answered; a continuation is sent to the second route without the
// first's.
func TestSignedBlocksStayWithTheirModel(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		fail, cut  map[string]bool
		first      string   // the text of the first turn
		firstAsked []string // the first turn's requests
	}{
		{
			name:       "fallback",
			fail:       map[string]bool{"claude-opus": true},
			first:      "Answer from claude-sonnet.",
			firstAsked: []string{"claude-opus ", "claude-sonnet "},
		},
		{
			name:       "continued on the other route",
			cut:        map[string]bool{"claude-opus": true},
			first:      "HelAnswer from claude-sonnet.",
			firstAsked: []string{"claude-opus ", "claude-sonnet "},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &signedByModel{fail: tc.fail, cut: tc.cut}
			ts := srv.serve(t)
			r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(ts.URL, ts.Client())), tokenpace.Policy{Continue: true},
				tokenpace.Route{Name: "opus", Model: "claude-opus"}, tokenpace.Route{Name: "sonnet", Model: "claude-sonnet"})
			if err != nil {
				t.Fatal(err)
			}
			s := r.NewStreaming(ctx, openai.ChatCompletionNewParams{Model: "claude", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi")}})
			drain(t, s, 0)
			if err := s.Err(); err != nil || s.Text() != tc.first {
				t.Fatalf("first turn: Text() = %q, Err() = %v, want %q", s.Text(), err, tc.first)
			}
			if got := srv.requests(); strings.Join(got, "|") != strings.Join(tc.firstAsked, "|") {
				t.Errorf("first turn's requests (model, signatures given back) = %q, want %q", got, tc.firstAsked)
			}
			s2 := r.NewStreaming(ctx, nextTurn("claude", s.Accumulated().Choices[0].Message))
			drain(t, s2, 0)
			if err := s2.Err(); err != nil || s2.Text() != "Answer from claude-opus." {
				t.Fatalf("second turn: Text() = %q, Err() = %v, want the first route's answer", s2.Text(), err)
			}
			if got := srv.requests(); len(got) != 1 || got[0] != "claude-opus " {
				t.Errorf("second turn's requests = %q, want one to claude-opus without claude-sonnet's blocks", got)
			}
		})
	}
}

// TestSignedBlocksClientModels checks the same through a Client whose
// caller asks the proxy's other model for the next turn: it is sent
// without the blocks the first model signed, and answered; the next turn
// asked of the first model gets them back.
func TestSignedBlocksClientModels(t *testing.T) {
	ctx := context.Background()
	srv := &signedByModel{}
	ts := srv.serve(t)
	c := tokenpace.NewClient(openaiClient(ts.URL, ts.Client()))
	first := openai.ChatCompletionNewParams{Model: "claude-sonnet", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi")}}
	s := c.NewStreaming(ctx, first)
	drain(t, s, 0)
	if err := s.Err(); err != nil || s.Text() != "Answer from claude-sonnet." {
		t.Fatalf("first turn: Text() = %q, Err() = %v", s.Text(), err)
	}
	answer := s.Accumulated().Choices[0].Message
	srv.requests()
	for _, model := range []string{"claude-opus", "claude-sonnet"} {
		s := c.NewStreaming(ctx, nextTurn(model, answer))
		drain(t, s, 0)
		if err := s.Err(); err != nil || s.Text() != "Answer from "+model+"." {
			t.Errorf("next turn to %s: Text() = %q, Err() = %v", model, s.Text(), err)
		}
	}
	want := []string{"claude-opus ", "claude-sonnet sig-claude-sonnet"}
	if got := srv.requests(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("next turns' requests (model, signatures given back) = %q, want %q", got, want)
	}
}

// TestSignedBlocksHedgeWinner checks that the blocks of a hedge's winner
// go back to the winner's model alone: the first route's model, which
// has not answered when the hedge starts and loses, is sent the next turn
// without them, and the winner's model with them.
func TestSignedBlocksHedgeWinner(t *testing.T) {
	ctx := context.Background()
	srv := &signedByModel{hang: map[string]bool{"claude-opus": true}, hung: make(chan struct{}, 2)}
	ts := srv.serve(t)
	r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(ts.URL, ts.Client())), tokenpace.Policy{Hedge: tokenpace.Hedge{After: time.Millisecond}},
		tokenpace.Route{Name: "opus", Model: "claude-opus"}, tokenpace.Route{Name: "sonnet", Model: "claude-sonnet"})
	if err != nil {
		t.Fatal(err)
	}
	params := openai.ChatCompletionNewParams{Model: "claude", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi")}}
	for turn, want := range [][]string{
		{"claude-opus ", "claude-sonnet "},
		{"claude-opus ", "claude-sonnet sig-claude-sonnet"},
	} {
		s := r.NewStreaming(ctx, params)
		drain(t, s, 0)
		if err := s.Err(); err != nil || s.Text() != "Answer from claude-sonnet." {
			t.Fatalf("turn %d: Text() = %q, Err() = %v, want the hedge's answer", turn+1, s.Text(), err)
		}
		got := srv.requests()
		slices.Sort(got) // the hedge's request may reach the server first
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("turn %d's requests (model, signatures given back) = %q, want %q", turn+1, got, want)
		}
		params = nextTurn("claude", s.Accumulated().Choices[0].Message)
	}
}

// TestSignedBlocksSnapshotAlias checks that a tool call's next turn that
// names the model that signed its thinking by another of its names (the
// alias of a dated Claude snapshot, or the snapshot of an alias) gets the
// blocks back and is answered, where LiteLLM refuses it without them.
func TestSignedBlocksSnapshotAlias(t *testing.T) {
	ctx := context.Background()
	ts := liteLLMRelay(t)
	for _, names := range [][2]string{
		{"claude-sonnet-4-5", "claude-sonnet-4-5-20250929"},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
	} {
		c := tokenpace.NewClient(openaiClient(ts.URL, ts.Client()))
		first := weatherTurns(nil)
		first.Model = names[0]
		s := c.NewStreaming(ctx, first)
		drain(t, s, 0)
		msg := s.Accumulated().Choices[0].Message
		if len(msg.ToolCalls) != 1 {
			t.Fatalf("%s: first turn: %d calls (Err %v), want 1", names[0], len(msg.ToolCalls), s.Err())
		}
		next := weatherTurns(&msg)
		next.Model = names[1]
		s2 := c.NewStreaming(ctx, next)
		drain(t, s2, 0)
		if err := s2.Err(); err != nil || s2.Text() != "Sunny in Paris." {
			t.Errorf("signed by %s, next turn to %s: Text() = %q, Err() = %v", names[0], names[1], s2.Text(), err)
		}
	}
}
