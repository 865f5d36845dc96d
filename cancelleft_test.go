package tokenpace_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// bgRoute is a route named name to its own in-memory simulator, whose
// model "m" answers 3 words, the first after ttft and the others 10 ms
// apart.
func bgRoute(t *testing.T, name string, ttft time.Duration) tokenpace.Route {
	t.Helper()
	return simRouteTimed(t, name, &simulate.Fixed{TTFT: ttft, ITL: 10 * msec})
}

// bgStatus returns the status of response id at rt's server, as a GET
// without stream answers it.
func bgStatus(t *testing.T, rt tokenpace.Route, id string) responses.ResponseStatus {
	t.Helper()
	if id == "" {
		t.Fatal("no response id")
	}
	r, err := rt.Client.Responses.Get(context.Background(), id, responses.ResponseGetParams{})
	if err != nil {
		t.Fatalf("Get(%s) error = %v", id, err)
	}
	return r.Status
}

// A background response whose try the Router stops for another (a hedge
// that lost; a TTFT breach it fell back from) is cancelled at its server
// once the try ends: it no longer generates, and is billed no further.
// The caller's stream and figures are those of the try it reads: the
// winner's text, its TTFT, and no wait for the cancel. Before, the
// stopped response ran on to "completed".
func TestRouterCancelsBackgroundResponseItLeaves(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pol      tokenpace.Policy
		outcome  tokenpace.Outcome
		wantTTFT time.Duration
	}{
		{"hedge lost", tokenpace.Policy{Hedge: tokenpace.Hedge{After: 100 * msec}}, tokenpace.OutcomeHedgeLost, 150 * msec},
		{"TTFT breach", tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 200 * msec}}, tokenpace.OutcomeBreached, 250 * msec},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				slow, fast := bgRoute(t, "slow", 400*msec), bgRoute(t, "fast", 50*msec)
				r, err := tokenpace.NewRouter(tokenpace.NewClient(openai.NewClient()), tc.pol, slow, fast)
				if err != nil {
					t.Fatal(err)
				}
				p := respond("m", 16)
				p.Background = openai.Bool(true)
				s := r.NewResponseStreaming(context.Background(), p)
				readEvents(s)
				if err := s.Err(); err != nil || s.Text() != words(1, 3) {
					t.Fatalf("Text() = %q, Err() = %v; want %q, nil", s.Text(), err, words(1, 3))
				}
				s.Close()
				tm := s.Timing()
				if tm.TTFT() != tc.wantTTFT || tm.Target != "fast" {
					t.Errorf("TTFT() = %v from %q, want %v from fast", tm.TTFT(), tm.Target, tc.wantTTFT)
				}
				left := tm.Attempts[0]
				if left.Target != "slow" || left.Outcome != tc.outcome {
					t.Fatalf("first attempt = %s, %s; want slow, %s", left.Target, left.Outcome, tc.outcome)
				}
				synctest.Wait() // the cancel, on its own goroutine
				if st := bgStatus(t, slow, left.ResponseID); st != responses.ResponseStatusCancelled {
					t.Errorf("the left response's status = %q, want cancelled", st)
				}
				if st := bgStatus(t, fast, tm.ResponseID); st != responses.ResponseStatusCompleted {
					t.Errorf("the caller's response's status = %q, want completed", st)
				}
			})
		})
	}
}

// A background response the caller stops (Close mid-answer) is not
// cancelled: background mode lets the caller come back for it, and it
// runs to its end. Nor is one that ran without background mode ever
// asked about.
func TestRouterLeavesCallersBackgroundResponse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := bgRoute(t, "only", 50*msec)
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openai.NewClient()),
			tokenpace.Policy{Hedge: tokenpace.Hedge{After: time.Second}}, rt)
		if err != nil {
			t.Fatal(err)
		}
		p := respond("m", 16)
		p.Background = openai.Bool(true)
		s := r.NewResponseStreaming(context.Background(), p)
		for s.Next() && s.Current().Type != "response.output_text.delta" {
		}
		s.Close()
		id := s.Timing().ResponseID
		g := rt.Client.Responses.GetStreaming(context.Background(), id, responses.ResponseGetParams{}, option.WithQuery("stream", "true"))
		for g.Next() { // to the response's end
		}
		g.Close()
		if st := bgStatus(t, rt, id); st != responses.ResponseStatusCompleted {
			t.Errorf("status = %q, want completed", st)
		}
	})
}

// A cancel its server refuses with 409 (Llama Stack's, OGX, for a
// response that ended before the cancel came: cancel_openai_response in
// src/ogx/providers/inline/responses/builtin/responses/openai_responses.py)
// is sent once: the response's state will not change, though openai-go
// sends every 409 again, twice by default. A cancel the server accepts is
// sent once too.
func TestRouterCancelRefusedNotSentAgain(t *testing.T) {
	for _, conflict := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			b := &bgServer{cut: 8, queue: 300 * msec, cancelConflict: conflict}
			url, hc := serve(t, b)
			// openai-go's retries as a caller has them by default.
			oc := openai.NewClient(option.WithBaseURL(url), option.WithHTTPClient(hc), option.WithAPIKey("sk-test-secret"))
			r, err := tokenpace.NewRouter(tokenpace.NewClient(oc),
				tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 200 * msec}}, route("bg"), route("plain"))
			if err != nil {
				t.Fatal(err)
			}
			s := r.NewResponseStreaming(context.Background(), background("bg"))
			readEvents(s)
			if err := s.Err(); err != nil || s.Text() != "rest" {
				t.Fatalf("Text() = %q, Err() = %v; want %q, nil", s.Text(), err, "rest")
			}
			s.Close()
			time.Sleep(time.Minute) // past the cancel's retries, on virtual time
			b.mu.Lock()
			defer b.mu.Unlock()
			if b.cancels != 1 {
				t.Errorf("409: %v; cancels sent = %d, want 1", conflict, b.cancels)
			}
		})
	}
}
