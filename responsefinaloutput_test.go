package tokenpace_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
)

// finalShapes are Responses streams whose output is in their final event,
// alone or after events that gave some or all of it: the shapes a
// server's final response may repeat, or hold alone (LiteLLM's fake
// stream, BerriAI/litellm#9545, #21090).
const (
	finalMsg      = `{"type":"message","id":"m","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Hello there.","annotations":[]}]}`
	finalMsg2     = `{"type":"message","id":"m2","role":"assistant","status":"completed","content":[{"type":"output_text","text":" Bye.","annotations":[]}]}`
	finalRefused  = `{"type":"message","id":"m","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Hello there.","annotations":[]},{"type":"refusal","refusal":"Not that."}]}`
	finalCall     = `{"type":"function_call","id":"fc","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}","status":"completed"}`
	finalMsgAdded = `{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"m","role":"assistant","status":"in_progress","content":[]}}`
)

// finalEvent returns a final event of type typ whose response, of status
// status, holds output.
func finalEvent(typ, status, extra string, output ...string) string {
	return `{"type":"` + typ + `","response":{"id":"r","object":"response","status":"` + status + `","model":"m",` + extra +
		`"output":[` + strings.Join(output, ",") + `],"usage":{"input_tokens":5,"output_tokens":3,"total_tokens":8}}}`
}

// sseEvents answers with evs, one every 100ms from the request.
func sseEvents(evs ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		start := time.Now()
		for i, e := range evs {
			if !sleepUntil(r.Context(), start.Add(time.Duration(i+1)*100*msec)) {
				return
			}
			_, _ = fmt.Fprintf(w, "data: %s\n\n", e)
			_ = rc.Flush()
		}
	}
}

// The output of a Responses stream's final event reaches the caller once:
// the text its response holds when no event before it gave any, never the
// text again after deltas, a done event or a refusal gave it; a call it
// holds counted as output when nothing was output before it. Text(),
// Accumulated(), the output chunks and TTFT agree; a response.incomplete
// cut at max_output_tokens is a whole answer, a response.failed an error.
func TestResponseFinalOutputOnce(t *testing.T) {
	completed := func(output ...string) string { return finalEvent("response.completed", "completed", "", output...) }
	delta := func(s string) string {
		return `{"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"` + s + `"}`
	}
	for _, tc := range []struct {
		name    string
		evs     []string
		text    string
		refusal string
		chunks  int           // output chunks
		ttft    time.Duration // 100ms an event
		finish  string
		err     tokenpace.ErrorKind // -1: none
	}{
		{"only response.completed", []string{completed(finalMsg)}, "Hello there.", "", 1, 100 * msec, "stop", -1},
		{"deltas, then the text again in response.completed", []string{finalMsgAdded, delta("Hello "), delta("there."), completed(finalMsg)}, "Hello there.", "", 2, 200 * msec, "stop", -1},
		{"output_text.done alone, then response.completed", []string{finalMsgAdded,
			`{"type":"response.output_text.done","item_id":"m","output_index":0,"content_index":0,"text":"Hello there."}`, completed(finalMsg)}, "Hello there.", "", 1, 200 * msec, "stop", -1},
		{"content_part.done and output_item.done whole, no delta", []string{finalMsgAdded,
			`{"type":"response.content_part.done","item_id":"m","output_index":0,"content_index":0,"part":{"type":"output_text","text":"Hello there.","annotations":[]}}`,
			`{"type":"response.output_item.done","output_index":0,"item":` + finalMsg + `}`, completed(finalMsg)}, "Hello there.", "", 1, 400 * msec, "stop", -1},
		{"reasoning deltas, the text only in response.completed", []string{
			`{"type":"response.reasoning_text.delta","item_id":"rs","output_index":0,"content_index":0,"delta":"Thinking."}`,
			completed(`{"type":"reasoning","id":"rs","summary":[],"content":[{"type":"reasoning_text","text":"Thinking."}]}`, finalMsg)}, "Hello there.", "", 2, 100 * msec, "stop", -1},
		{"a call streamed, repeated in response.completed", []string{
			`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc","call_id":"call_1","name":"get_weather","arguments":"","status":"in_progress"}}`,
			`{"type":"response.function_call_arguments.delta","item_id":"fc","output_index":0,"delta":"{\"city\":\"Paris\"}"}`,
			`{"type":"response.output_item.done","output_index":0,"item":` + finalCall + `}`, completed(finalCall)}, "", "", 1, 200 * msec, "stop", -1},
		{"a call only in response.completed", []string{completed(finalCall)}, "", "", 1, 100 * msec, "stop", -1},
		{"text and a refusal part only in response.completed", []string{completed(finalRefused)}, "Hello there.", "Not that.", 1, 100 * msec, "stop", -1},
		{"a refusal streamed, text and refusal in response.completed", []string{
			`{"type":"response.refusal.delta","item_id":"m","output_index":0,"content_index":1,"delta":"Not that."}`, completed(finalRefused)}, "Hello there.", "Not that.", 2, 100 * msec, "stop", -1},
		{"two messages only in response.completed", []string{completed(finalMsg, finalMsg2)}, "Hello there. Bye.", "", 1, 100 * msec, "stop", -1},
		{"response.incomplete at max_output_tokens, the text only there", []string{
			finalEvent("response.incomplete", "incomplete", `"incomplete_details":{"reason":"max_output_tokens"},`, finalMsg)}, "Hello there.", "", 1, 100 * msec, "max_output_tokens", -1},
		{"response.failed, output only there", []string{
			finalEvent("response.failed", "failed", `"error":{"code":"server_error","message":"The model failed."},`, finalMsg)}, "", "", 0, 0, "", tokenpace.KindErrorEvent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, sseEvents(tc.evs...))
				c := tokenpace.NewClient(openaiClient(url, hc))
				s := c.NewResponseStreaming(context.Background(), respond("m", 64))
				readEvents(s)
				tm := s.Timing()
				acc := s.Accumulated()
				var content, refusal string
				if len(acc.Choices) > 0 {
					content, refusal = acc.Choices[0].Message.Content, acc.Choices[0].Message.Refusal
				}
				if s.Text() != tc.text || content != tc.text || refusal != tc.refusal {
					t.Errorf("Text() = %q, Accumulated() = %q (refusal %q); want %q (%q)", s.Text(), content, refusal, tc.text, tc.refusal)
				}
				if tm.OutputChunks != tc.chunks || tm.TTFT() != tc.ttft {
					t.Errorf("%d output chunks, TTFT %v; want %d, %v", tm.OutputChunks, tm.TTFT(), tc.chunks, tc.ttft)
				}
				var se *tokenpace.StreamError
				switch err := s.Err(); {
				case tc.err < 0 && err != nil:
					t.Errorf("Err() = %v, want nil", err)
				case tc.err >= 0 && (!errors.As(err, &se) || se.Kind != tc.err):
					t.Errorf("Err() = %v, want a %v *StreamError", err, tc.err)
				}
				if tm.FinishReason != tc.finish {
					t.Errorf("FinishReason %q, want %q", tm.FinishReason, tc.finish)
				}
			})
		})
	}
}

// A Router takes an answer held whole in the final event for the answer
// it is, under each of its policies: Probation releases it at its end,
// a hedge whose first token is that event wins or loses by its arrival,
// a Validator reads its text, an answer cut at max_output_tokens is the
// caller's limit reached, not carried on, and a restart after a broken call that
// lands on it ends with its call, not "ended without output".
func TestRouterResponseFinalOutputOnly(t *testing.T) {
	fake := sseEvents(finalEvent("response.completed", "completed", "", finalMsg), "[DONE]")                                                // at 100ms
	fakeCut := sseEvents(finalEvent("response.incomplete", "incomplete", `"incomplete_details":{"reason":"max_output_tokens"},`, finalMsg)) // at 100ms
	fakeCall := sseEvents(finalEvent("response.completed", "completed", "", finalCall), "[DONE]")                                           // at 100ms
	// streams answers "Other." in a delta at 300ms.
	streams := sseEvents(`{"type":"response.created","response":{"id":"o","object":"response","status":"in_progress","model":"streams","output":[]}}`,
		`{"type":"response.in_progress","response":{"id":"o","object":"response","status":"in_progress","model":"streams","output":[]}}`,
		`{"type":"response.output_text.delta","item_id":"o","output_index":0,"content_index":0,"delta":"Other."}`,
		finalEvent("response.completed", "completed", "", `{"type":"message","id":"o","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Other.","annotations":[]}]}`))
	// brokenCall streams the start of a call and stalls: the caller's first
	// token at 200ms.
	brokenCall := sseEvents(`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc0","call_id":"call_0","name":"get_weather","arguments":"","status":"in_progress"}}`,
		`{"type":"response.function_call_arguments.delta","item_id":"fc0","output_index":0,"delta":"{\"ci"}`)
	validate := func(s string) error {
		if s != "Hello there." {
			return errors.New("not the answer: " + s)
		}
		return nil
	}
	for _, tc := range []struct {
		name   string
		pol    tokenpace.Policy
		routes []string
		text   string
		calls  int
		kinds  string
		ttft   time.Duration
	}{
		{"probation by tokens", tokenpace.Policy{Probation: tokenpace.Probation{Tokens: 5}}, []string{"fake", "streams"}, "Hello there.", 0, "[first]", 100 * msec},
		{"probation by sentence", tokenpace.Policy{Probation: tokenpace.Probation{Sentence: true}}, []string{"fake", "streams"}, "Hello there.", 0, "[first]", 100 * msec},
		{"hedge: the final event first", tokenpace.Policy{Hedge: tokenpace.Hedge{After: 50 * msec}}, []string{"fake", "streams"}, "Hello there.", 0, "[first hedge]", 100 * msec},
		{"hedge: the streamed token first", tokenpace.Policy{Hedge: tokenpace.Hedge{After: 50 * msec}}, []string{"streams", "fake"}, "Hello there.", 0, "[first hedge]", 150 * msec},
		{"validator", tokenpace.Policy{Validator: validate}, []string{"fake", "streams"}, "Hello there.", 0, "[first]", 100 * msec},
		{"incomplete at max_output_tokens, not carried on", tokenpace.Policy{Continue: true}, []string{"fakeCut", "streams"}, "Hello there.", 0, "[first]", 100 * msec},
		{"restart onto a call in the final event", tokenpace.Policy{Continue: true, Budget: tokenpace.Budget{Gap: 500 * msec}}, []string{"brokenCall", "fakeCall"}, "", 1, "[first restart]", 200 * msec},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, byModel(map[string]http.Handler{"fake": fake, "fakeCut": fakeCut, "fakeCall": fakeCall, "streams": streams, "brokenCall": brokenCall}))
				var rs []tokenpace.Route
				for _, n := range tc.routes {
					rs = append(rs, route(n))
				}
				r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tc.pol, rs...)
				if err != nil {
					t.Fatal(err)
				}
				s := r.NewResponseStreaming(context.Background(), respond(tc.routes[0], 64))
				evs, _ := readEvents(s)
				tm := s.Timing()
				if s.Text() != tc.text || s.Err() != nil || fmt.Sprint(kinds(tm)) != tc.kinds {
					t.Errorf("Text() = %q, Err() = %v, kinds %v (%v); want %q, nil, %s", s.Text(), s.Err(), kinds(tm), outcomes(tm), tc.text, tc.kinds)
				}
				calls := 0
				if n := len(evs); n > 0 {
					for _, it := range evs[n-1].Response.Output {
						if it.Type == "function_call" {
							calls++
						}
					}
				}
				if calls != tc.calls || tm.TTFT() != tc.ttft {
					t.Errorf("%d calls in the final response, TTFT %v; want %d, %v", calls, tm.TTFT(), tc.calls, tc.ttft)
				}
			})
		})
	}
}
