package tokenpace_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
)

// publishedResponse replays testdata/openai-responses-stream.sse: a
// Responses stream of api.openai.com (gpt-3.5-turbo-0125, "Say some
// greetings") as published, event for event, in the tests of
// r4u-dev/open-r4u (backend/tests/test_http_traces.py,
// test_create_openai_streaming_responses_api_trace): 19 events from
// response.created to response.completed, 11 output_text deltas with
// OpenAI's obfuscation and logprobs fields, usage 13 in / 12 out. The
// sample has no arrival times: headers come at 120 ms, the two lifecycle
// events at 150 ms, the item and part at 290 ms, a delta every 20 ms
// from 300 ms, and the four closing events at 520 ms.
func publishedResponse(t *testing.T) recording {
	t.Helper()
	b, err := os.ReadFile("testdata/openai-responses-stream.sse")
	if err != nil {
		t.Fatal(err)
	}
	rec := recording{Status: 200, HeadersMS: 120, Headers: map[string]string{"Content-Type": "text/event-stream; charset=utf-8"}}
	events := strings.SplitAfter(string(b), "\n\n")
	deltas := 0
	for _, ev := range events {
		if ev == "" {
			continue
		}
		at := 150.0
		switch {
		case strings.HasPrefix(ev, "event: response.output_text.delta"):
			at = 300 + 20*float64(deltas)
			deltas++
		case strings.HasPrefix(ev, "event: response.output_item.added"), strings.HasPrefix(ev, "event: response.content_part.added"):
			at = 290
		case deltas > 0:
			at = 520
		}
		rec.Reads = append(rec.Reads, recordedRead{TMS: at, Data: ev})
	}
	return rec
}

// OpenAI's own Responses stream, replayed, reads and times as the
// simulator's does, through a Client and through a Router: the text of
// the deltas, every event in order, TTFT to the first delta, E2E to
// response.completed, the usage it reports.
func TestResponsePublishedStream(t *testing.T) {
	const want = "Greetings, hello, hi, hey, salutations!"
	tests := []struct {
		name string
		open func(c *tokenpace.Client) *tokenpace.Stream[responses.ResponseStreamEventUnion]
	}{
		{"client", func(c *tokenpace.Client) *tokenpace.Stream[responses.ResponseStreamEventUnion] {
			return c.NewResponseStreaming(context.Background(), respond("gpt-3.5-turbo-0125", 100))
		}},
		{"router", func(c *tokenpace.Client) *tokenpace.Stream[responses.ResponseStreamEventUnion] {
			r, err := tokenpace.NewRouter(c, tokenpace.Policy{Budget: tokenpace.Budget{TTFT: time.Second, Gap: 100 * msec}, Continue: true}, route("openai"))
			if err != nil {
				t.Fatalf("NewRouter() error = %v", err)
			}
			return r.NewResponseStreaming(context.Background(), respond("gpt-3.5-turbo-0125", 100))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, replay(publishedResponse(t)))
				start := time.Now()
				s := tt.open(tokenpace.NewClient(openaiClient(url, hc)))
				types, text, at := readResponse(s, start)
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				if text != want || s.Text() != want {
					t.Errorf("text = %q, Text() = %q, want %q", text, s.Text(), want)
				}
				if len(types) != 19 || types[0] != "response.created" || types[18] != "response.completed" ||
					slices.Index(types, "response.output_text.delta") != 4 {
					t.Errorf("event types = %v, want the 19 events of the sample, in order", types)
				}
				if len(at) != 11 || at[0] != 300*msec || at[10] != 500*msec {
					t.Errorf("deltas read at %v, want 11 from 300ms to 500ms", at)
				}
				tm := s.Timing()
				if tm.TTFT() != 300*msec || tm.E2E() != 520*msec || len(tm.Chunks) != 11 {
					t.Errorf("TTFT %v, E2E %v, %d chunks; want 300ms, 520ms, 11", tm.TTFT(), tm.E2E(), len(tm.Chunks))
				}
				if !tm.UsageReported || tm.PromptTokens != 13 || tm.OutputTokens != 12 || tm.FinishReason != "stop" ||
					tm.ResponseModel != "gpt-3.5-turbo-0125" || tm.API != tokenpace.APIResponses {
					t.Errorf("usage %v %d/%d, finish %q, model %q, API %q; want true 13/12, stop, gpt-3.5-turbo-0125, responses",
						tm.UsageReported, tm.PromptTokens, tm.OutputTokens, tm.FinishReason, tm.ResponseModel, tm.API)
				}
			})
		})
	}
}
