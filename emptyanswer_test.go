package tokenpace_test

import (
	"context"
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

// replaced sends each request to the server and replaces the body of its
// response with body.
func replaced(body string) option.RequestOption {
	return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if err != nil {
			return res, err
		}
		res.Body.Close()
		res.Body = io.NopCloser(strings.NewReader(body))
		return res, nil
	})
}

// oneRoute returns a Client and a Router with one route, to model "m",
// both on the same in-memory simulator.
func oneRoute(t *testing.T) (*tokenpace.Client, *tokenpace.Router) {
	t.Helper()
	tp := simClient(t, []simulate.Option{simulate.WithModel("m", &simulate.Fixed{})})
	r, err := tokenpace.NewRouter(tp, tokenpace.Policy{}, tokenpace.Route{Name: "only", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return tp, r
}

// A whole chat response without output (empty content) from the last
// route is the caller's answer, never a nil response with a nil error.
func TestRouterNewEmptyAnswer(t *testing.T) {
	_, r := oneRoute(t)
	body := `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":0,"total_tokens":3}}`
	var tm *tokenpace.Timing
	res, err := r.New(context.Background(), chat("m", 10), replaced(body), tokenpace.WithTimingInto(&tm))
	if err != nil || res == nil {
		t.Fatalf("New() = %v, %v (attempts %v); want the empty answer", res, err, outcomes(tm))
	}
	if got := res.Choices[0].FinishReason; got != "stop" || res.Usage.PromptTokens != 3 {
		t.Errorf("finish reason %q, prompt tokens %d; want stop, 3", got, res.Usage.PromptTokens)
	}
}

// A whole Responses response without output (max_output_tokens hit while
// reasoning) from the last route is the caller's answer.
func TestRouterNewResponseEmptyAnswer(t *testing.T) {
	_, r := oneRoute(t)
	body := `{"id":"resp_1","object":"response","created_at":1,"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"model":"m","output":[],"usage":{"input_tokens":3,"output_tokens":0,"total_tokens":3,"input_tokens_details":{"cached_tokens":0},"output_tokens_details":{"reasoning_tokens":0}}}`
	res, err := r.NewResponse(context.Background(), respond("m", 10), replaced(body))
	if err != nil || res == nil {
		t.Fatalf("NewResponse() = %v, %v; want the incomplete response", res, err)
	}
	if res.Status != responses.ResponseStatusIncomplete || res.IncompleteDetails.Reason != "max_output_tokens" {
		t.Errorf("status %q, reason %q; want incomplete, max_output_tokens", res.Status, res.IncompleteDetails.Reason)
	}
}

// emptyStream is an event stream without an output token: a role chunk,
// a content filter's finish and the usage.
const emptyStream = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}` + "\n\n" +
	`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"content_filter"}]}` + "\n\n" +
	`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":0,"total_tokens":3}}` + "\n\n" +
	"data: [DONE]\n\n"

// A stream without an output token (a content filter) from the last route
// reaches the Router's caller whole, as a Client's: its finish reason and
// its usage.
func TestRouterStreamEmptyAnswer(t *testing.T) {
	sse := emptyStream
	tp, r := oneRoute(t)
	read := func(s *tokenpace.Stream[openai.ChatCompletionChunk]) (reasons []string, usage int64) {
		defer s.Close()
		for s.Next() {
			for _, c := range s.Current().Choices {
				reasons = append(reasons, string(c.FinishReason))
			}
			usage += s.Current().Usage.PromptTokens
		}
		if err := s.Err(); err != nil {
			t.Errorf("Err() = %v, want nil", err)
		}
		return reasons, usage
	}
	wantReasons, wantUsage := read(tp.NewStreaming(context.Background(), chat("m", 10), replaced(sse)))
	gotReasons, gotUsage := read(r.NewStreaming(context.Background(), chat("m", 10), replaced(sse)))
	if !slices.Equal(gotReasons, wantReasons) || gotUsage != wantUsage || gotUsage != 3 {
		t.Errorf("Router: finish reasons %q, prompt tokens %d; Client: %q, %d", gotReasons, gotUsage, wantReasons, wantUsage)
	}
}

// TestRouterEmptyAnswerThenHedgeFails: the first route answers without
// output while a hedge runs, and the hedge then fails: the caller gets the
// empty answer, not the hedge's error.
func TestRouterEmptyAnswerThenHedgeFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// big answers without output, its events 25 ms apart (the end at
		// 75 ms), while the hedge, started at 20 ms, resets at 120 ms.
		events := strings.SplitAfter(emptyStream, "\n\n")
		big := route("big")
		big.Options = []option.RequestOption{option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			res, err := next(req)
			if err == nil {
				res.Body.Close()
				res.Body = &pacedBody{parts: events[:len(events)-1], gap: 25 * time.Millisecond}
			}
			return res, err
		})}
		small := route("small")
		small.Options = []option.RequestOption{withFault("reset;after=0")}
		r := router(t, tokenpace.Policy{Hedge: tokenpace.Hedge{After: 20 * time.Millisecond}},
			[]simulate.Option{
				simulate.WithModel("big", &simulate.Fixed{TTFT: time.Second, ITL: time.Millisecond}),
				simulate.WithModel("small", &simulate.Fixed{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond}),
			}, big, small)
		start := time.Now()
		s := r.NewStreaming(context.Background(), chat("big", 4))
		var reasons []string
		for s.Next() {
			for _, c := range s.Current().Choices {
				reasons = append(reasons, string(c.FinishReason))
			}
		}
		s.Close()
		waited := time.Since(start)
		if err := s.Err(); err != nil || !slices.Contains(reasons, "content_filter") || waited != 120*time.Millisecond {
			t.Errorf("Err() = %v, finish reasons %q after %v; want nil and the empty answer's content_filter after 120ms (the hedge's reset)",
				err, reasons, waited)
		}
		if got, want := kinds(s.Timing()), []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptHedge}; !slices.Equal(got, want) {
			t.Errorf("attempts %v, want %v", got, want)
		}
	})
}
