package tokenpace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
)

// statefulServer is a Responses server that stores the responses it
// makes, as OpenAI's does, and answers a previous_response_id it does not
// hold with OpenAI's 404 (or, with ignoreUnknown, as servers that do not
// chain do: without the history). Its answer's text is the number of
// turns of the conversation it knew: "turn 2" for a second turn.
type statefulServer struct {
	name          string
	ignoreUnknown bool
	delay         time.Duration // before each answer
	status        int           // answered instead, when not 0

	mu    sync.Mutex
	turns map[string]int // response id → its turn
	ids   int
	got   []string // previous_response_id of each request
}

func (s *statefulServer) RoundTrip(r *http.Request) (*http.Response, error) {
	var req struct {
		Previous string `json:"previous_response_id"`
	}
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &req)
	s.mu.Lock()
	s.got = append(s.got, req.Previous)
	s.mu.Unlock()
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
	answer := func(status int, body string) (*http.Response, error) {
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	}
	if s.status != 0 {
		return answer(s.status, `{"error":{"message":"unavailable","type":"server_error"}}`)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	turn := 1
	if req.Previous != "" {
		prev, ok := s.turns[req.Previous]
		switch {
		case ok:
			turn = prev + 1
		case !s.ignoreUnknown:
			return answer(http.StatusNotFound, fmt.Sprintf(`{"error":{"message":"Previous response with id '%s' not found.","type":"invalid_request_error","param":"previous_response_id","code":"previous_response_not_found"}}`, req.Previous))
		}
	}
	s.ids++
	id := fmt.Sprintf("resp_%s%d", s.name, s.ids)
	if s.turns == nil {
		s.turns = make(map[string]int)
	}
	s.turns[id] = turn
	return answer(http.StatusOK, fmt.Sprintf(`{"id":%q,"object":"response","created_at":1,"status":"completed","model":"m",`+
		`"output":[{"type":"message","id":"msg_%s","status":"completed","role":"assistant","content":[{"type":"output_text","text":"turn %d","annotations":[]}]}],`+
		`"usage":{"input_tokens":5,"output_tokens":2,"total_tokens":7}}`, id, id, turn))
}

// previous returns the previous_response_id of each request s was sent.
func (s *statefulServer) previous() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// statefulRoute returns a route to s.
func statefulRoute(s *statefulServer) tokenpace.Route {
	c := openaiClient("http://"+s.name+".test/v1", &http.Client{Transport: s})
	return tokenpace.Route{Name: s.name, Client: &c}
}

// turn returns the params of a turn after the response previous ("" for
// the first).
func turn(previous string) responses.ResponseNewParams {
	p := responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("and then?")}}
	if previous != "" {
		p.PreviousResponseID = openai.String(previous)
	}
	return p
}

// A turn that names a response stored by one route goes to that route
// only: another route does not have its history, and either answers 404
// or, worse, answers without it.
func TestRouterKeepsTurnOnRouteThatStoredIt(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		t.Run(fmt.Sprintf("ignoreUnknown=%v", ignore), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := &statefulServer{name: "a", ignoreUnknown: ignore}
				b := &statefulServer{name: "b", ignoreUnknown: ignore}
				r, err := tokenpace.NewRouter(tokenpace.NewClient(openai.NewClient()), tokenpace.Policy{}, statefulRoute(a), statefulRoute(b))
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				res, err := r.NewResponse(ctx, turn(""))
				if err != nil || res.ID != "resp_a1" {
					t.Fatalf("turn 1 = %v, %v; want resp_a1", res, err)
				}
				a.status = http.StatusServiceUnavailable
				var tm *tokenpace.Timing
				res, err = r.NewResponse(ctx, turn(res.ID), tokenpace.WithTimingInto(&tm))
				if err == nil {
					t.Fatalf("turn 2 = %q from %s, nil error; want a's error", res.OutputText(), tm.Target)
				}
				if got := b.previous(); len(got) != 0 {
					t.Errorf("b was sent %q, a response it does not hold", got)
				}
				var se *tokenpace.StreamError
				if !errorsAs(err, &se) || se.Target != "a" {
					t.Errorf("turn 2 error = %v, want a's", err)
				}
			})
		})
	}
}

// The next turn after a turn that another route answered goes to that
// route, the one that stored the response the caller was given.
func TestRouterSendsNextTurnToRouteThatAnswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := &statefulServer{name: "a", ignoreUnknown: true, status: http.StatusServiceUnavailable}
		b := &statefulServer{name: "b", ignoreUnknown: true}
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openai.NewClient()), tokenpace.Policy{}, statefulRoute(a), statefulRoute(b))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		var tm *tokenpace.Timing
		res, err := r.NewResponse(ctx, turn(""), tokenpace.WithTimingInto(&tm))
		if err != nil || tm.Target != "b" || tm.ResponseID != res.ID {
			t.Fatalf("turn 1 = %v, %v from %s (ResponseID %q); want b's answer", res, err, tm.Target, tm.ResponseID)
		}
		a.status = 0 // a is well again, and first in order
		res, err = r.NewResponse(ctx, turn(res.ID), tokenpace.WithTimingInto(&tm))
		if err != nil || res.OutputText() != "turn 2" || tm.Target != "b" {
			t.Fatalf("turn 2 = %q, %v from %s; want \"turn 2\" from b", res.OutputText(), err, tm.Target)
		}
		if got := a.previous(); len(got) != 1 {
			t.Errorf("a was sent previous_response_id %q, want only turn 1", got)
		}
	})
}

// A hedge goes to another route, which does not hold the response a turn
// names: a slow turn is not hedged.
func TestRouterDoesNotHedgeTurnElsewhere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := &statefulServer{name: "a", ignoreUnknown: true}
		b := &statefulServer{name: "b", ignoreUnknown: true}
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openai.NewClient()),
			tokenpace.Policy{Hedge: tokenpace.Hedge{After: 100 * time.Millisecond}}, statefulRoute(a), statefulRoute(b))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		res, err := r.NewResponse(ctx, turn(""))
		if err != nil {
			t.Fatal(err)
		}
		a.delay = time.Second
		var tm *tokenpace.Timing
		res, err = r.NewResponse(ctx, turn(res.ID), tokenpace.WithTimingInto(&tm))
		if err != nil || res.OutputText() != "turn 2" || tm.Target != "a" {
			t.Fatalf("turn 2 = %q, %v from %s; want \"turn 2\" from a", res.OutputText(), err, tm.Target)
		}
		if got := b.previous(); len(got) != 0 {
			t.Errorf("b was sent %q, a response it does not hold", got)
		}
	})
}

// failingModel answers 503 to every request for model, and passes the
// others to next.
type failingModel struct {
	model string
	next  http.RoundTripper
}

func (f failingModel) RoundTrip(r *http.Request) (*http.Response, error) {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(strings.NewReader(string(b)))
	var req struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(b, &req)
	if req.Model == f.model {
		return &http.Response{StatusCode: http.StatusServiceUnavailable, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(`{"error":{"message":"unavailable","type":"server_error"}}`)), Request: r}, nil
	}
	return f.next.RoundTrip(r)
}

// Two routes that ask one account's server, through the Router's own
// client, for two models, share its store: a turn whose response the
// first made falls back to the second, which answers with the history
// ("turn 2"), as two models of one OpenAI project do.
func TestRouterFallsBackWithinOneStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &statefulServer{name: "s"}
		tr := &failingModel{next: s}
		c := tokenpace.NewClient(openaiClient("http://s.test/v1", &http.Client{Transport: tr}))
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{},
			tokenpace.Route{Name: "big", Model: "big"}, tokenpace.Route{Name: "small", Model: "small"})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		first, err := r.NewResponse(ctx, turn(""))
		if err != nil {
			t.Fatalf("turn 1: %v", err)
		}
		tr.model = "big"
		var tm *tokenpace.Timing
		second, err := r.NewResponse(ctx, turn(first.ID), tokenpace.WithTimingInto(&tm))
		if err != nil || second.OutputText() != "turn 2" || tm.Target != "small" {
			t.Fatalf("turn 2: %v, %q from %q; want nil, \"turn 2\" from small (big's server holds the history for both)", err, second.OutputText(), tm.Target)
		}
	})
}
