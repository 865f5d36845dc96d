package tokenpace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// readEvents reads s to its end and returns the events the caller read
// and the index of each at which Restarted was true.
func readEvents(s *tokenpace.Stream[responses.ResponseStreamEventUnion]) (evs []responses.ResponseStreamEventUnion, restarts []int) {
	for s.Next() {
		if s.Restarted() {
			restarts = append(restarts, len(evs))
		}
		evs = append(evs, s.Current())
	}
	s.Close()
	return evs, restarts
}

// hasResponse reports whether an event of type typ carries a response.
func hasResponse(typ string) bool {
	switch typ {
	case "response.created", "response.in_progress", "response.completed", "response.incomplete", "response.failed":
		return true
	}
	return false
}

// checkOneResponse fails t unless evs, read from a Router stream that
// restarted at the events restarts, read as one response: sequence
// numbers from 0 without a gap, one response.created and one
// response.in_progress, at their start, one response id and created_at,
// typed fields that agree with the raw JSON the As methods decode, and
// openai-go's ResponseAccumulator fed every event without an error (and
// reset where the stream restarted). It returns the final event's
// response and the accumulator's snapshot.
func checkOneResponse(t *testing.T, evs []responses.ResponseStreamEventUnion, restarts []int) (responses.Response, responses.ResponseAccumulatorSnapshot) {
	t.Helper()
	if len(evs) < 3 || evs[0].Type != "response.created" || evs[1].Type != "response.in_progress" {
		t.Fatalf("events = %v, want response.created, response.in_progress, ...", eventTypes(evs))
	}
	var acc responses.ResponseAccumulator
	for i, ev := range evs {
		if ev.SequenceNumber != int64(i) {
			t.Errorf("event %d (%s) sequence_number = %d, want %d", i, ev.Type, ev.SequenceNumber, i)
		}
		if i > 1 && (ev.Type == "response.created" || ev.Type == "response.in_progress") {
			t.Errorf("event %d is %s, want one at the start only", i, ev.Type)
		}
		if hasResponse(ev.Type) && (ev.Response.ID != evs[0].Response.ID || ev.Response.CreatedAt != evs[0].Response.CreatedAt) {
			t.Errorf("event %d (%s) response id, created_at = %q, %v, want %q, %v",
				i, ev.Type, ev.Response.ID, ev.Response.CreatedAt, evs[0].Response.ID, evs[0].Response.CreatedAt)
		}
		var raw struct {
			Seq     int64  `json:"sequence_number"`
			ItemID  string `json:"item_id"`
			Index   int64  `json:"output_index"`
			Content int64  `json:"content_index"`
		}
		if err := json.Unmarshal([]byte(ev.RawJSON()), &raw); err != nil {
			t.Fatalf("event %d RawJSON() does not decode: %v", i, err)
		}
		if raw.Seq != ev.SequenceNumber || raw.ItemID != ev.ItemID || raw.Index != ev.OutputIndex || raw.Content != ev.ContentIndex {
			t.Errorf("event %d (%s) raw JSON %+v, fields seq %d item %q index %d content %d; want them equal",
				i, ev.Type, raw, ev.SequenceNumber, ev.ItemID, ev.OutputIndex, ev.ContentIndex)
		}
		if ev.Type == "response.output_text.done" && ev.AsResponseOutputTextDone().Text != ev.Text {
			t.Errorf("AsResponseOutputTextDone().Text = %q, want %q", ev.AsResponseOutputTextDone().Text, ev.Text)
		}
		if slices.Contains(restarts, i) {
			acc.Reset()
		}
		var sev responses.ResponsesServerEventUnion
		if err := json.Unmarshal([]byte(ev.RawJSON()), &sev); err != nil {
			t.Fatalf("event %d does not decode as a server event: %v", i, err)
		}
		if err := acc.AddEvent(sev); err != nil {
			t.Errorf("ResponseAccumulator.AddEvent(event %d, %s) = %v, want nil", i, ev.Type, err)
		}
	}
	last := evs[len(evs)-1]
	if last.Type != "response.completed" && last.Type != "response.incomplete" {
		t.Fatalf("last event = %s, want response.completed or response.incomplete", last.Type)
	}
	if _, err := acc.ReconstructedResponse(); err != nil {
		t.Errorf("ResponseAccumulator.ReconstructedResponse() error = %v, want nil", err)
	}
	return last.Response, acc.Snapshot()
}

func eventTypes(evs []responses.ResponseStreamEventUnion) []string {
	var types []string
	for _, ev := range evs {
		types = append(types, ev.Type)
	}
	return types
}

// checkOneMessage fails t unless the events evs carry one message item
// whose text is want: one output_item.added of a message, every text
// event on its item id and output_index, output_text.done,
// content_part.done, output_item.done and the final response's output
// with the whole text.
func checkOneMessage(t *testing.T, evs []responses.ResponseStreamEventUnion, final responses.Response, want string) {
	t.Helper()
	var id string
	index := int64(-1)
	deltas, dones := "", 0
	for i, ev := range evs {
		switch ev.Type {
		case "response.output_item.added":
			if ev.Item.Type != "message" || id != "" {
				t.Errorf("event %d adds item %q of type %s, want one message item", i, ev.Item.ID, ev.Item.Type)
			}
			id, index = ev.Item.ID, ev.OutputIndex
		case "response.output_text.delta":
			deltas += ev.Delta
		case "response.output_text.done":
			dones++
			if ev.Text != want {
				t.Errorf("output_text.done text = %q, want %q", ev.Text, want)
			}
		case "response.content_part.done":
			dones++
			if ev.Part.Text != want {
				t.Errorf("content_part.done part text = %q, want %q", ev.Part.Text, want)
			}
		case "response.output_item.done":
			dones++
			if ev.Item.ID != id || len(ev.Item.Content) != 1 || ev.Item.Content[0].Text != want {
				t.Errorf("output_item.done item %q content %+v, want %q with text %q", ev.Item.ID, ev.Item.Content, id, want)
			}
		}
		if ev.ItemID != "" && (ev.ItemID != id || ev.OutputIndex != index || ev.ContentIndex != 0) {
			t.Errorf("event %d (%s) on item %q at %d/%d, want %q at %d/0", i, ev.Type, ev.ItemID, ev.OutputIndex, ev.ContentIndex, id, index)
		}
	}
	if deltas != want || dones != 3 {
		t.Errorf("deltas %q, %d done events; want %q, 3", deltas, dones, want)
	}
	if len(final.Output) != 1 || final.Output[0].ID != id || final.OutputText() != want {
		t.Errorf("final output %d items, first %q, text %q; want 1, %q, %q", len(final.Output), final.Output[0].ID, final.OutputText(), id, want)
	}
}

// A Responses stream continued once or twice reads as the first route's
// one response: one created, sequence numbers on without a reset, one id,
// one message item whose done events and final output hold the whole
// text, usage over the whole output; openai-go's accumulator agrees.
func TestRouterResponseOneResponse(t *testing.T) {
	tests := []struct {
		name   string
		routes []string // each route but the last stalls after 3 tokens
		kinds  []tokenpace.AttemptKind
	}{
		{"one continuation", []string{"big", "small"},
			[]tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptContinuation}},
		{"two continuations", []string{"big", "mid", "small"},
			[]tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptContinuation, tokenpace.AttemptContinuation}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var routes []tokenpace.Route
				from := map[string]int{}
				sopts := []simulate.Option{
					// Each route's reply starts where the one before stalled.
					simulate.WithReply(func(ri simulate.ReplyInfo) (string, bool) { return words(from[ri.Model], 10), true }),
				}
				for i, name := range tt.routes {
					rt := route(name)
					if i < len(tt.routes)-1 {
						rt.Options = []option.RequestOption{withFault("stall;for=5s;after=3")}
					}
					routes = append(routes, rt)
					from[name] = 1 + 3*i
					sopts = append(sopts, simulate.WithModel(name, &simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}))
				}
				r := router(t, tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Continue: true}, sopts, routes...)
				s := r.NewResponseStreaming(context.Background(), respond("big", 10))
				evs, restarts := readEvents(s)
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				want := words(1, 10)
				if s.Text() != want || len(restarts) != 0 {
					t.Errorf("Text() = %q, restarted at %v; want %q, never", s.Text(), restarts, want)
				}
				tm := s.Timing()
				if got := kinds(tm); !slices.Equal(got, tt.kinds) {
					t.Fatalf("kinds = %v, want %v", got, tt.kinds)
				}
				final, snap := checkOneResponse(t, evs, restarts)
				checkOneMessage(t, evs, final, want)
				if snap.OutputText() != want {
					t.Errorf("accumulated text = %q, want %q", snap.OutputText(), want)
				}
				if u := final.Usage; u.OutputTokens != int64(tm.OutputTokens) || tm.OutputTokens != 10 || u.TotalTokens != u.InputTokens+u.OutputTokens {
					t.Errorf("final usage %d in, %d out, %d total; Timing.OutputTokens %d; want 10 out, as Timing, total their sum",
						u.InputTokens, u.OutputTokens, u.TotalTokens, tm.OutputTokens)
				}
			})
		})
	}
}

// A Responses stream that restarts after a broken function call reads as
// one response too: sequence numbers go on, the new response's created
// and in_progress are not passed on, its final response carries the
// first's id, and its output (the one whole call) replaces the old from
// the event Restarted reports.
func TestRouterResponseRestartOneResponse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := stallingRouter(t, 2, simulate.Fixed{TTFT: 100 * msec, ITL: 20 * msec}, simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec},
			withWeather())
		params := respond("big", 100)
		params.Tools = []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "get_weather"}}}
		s := r.NewResponseStreaming(context.Background(), params)
		evs, restarts := readEvents(s)
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		if len(restarts) != 1 {
			t.Fatalf("restarted at events %v, want once", restarts)
		}
		final, snap := checkOneResponse(t, evs, restarts)
		at := restarts[0]
		if ev := evs[at]; ev.Type != "response.output_item.added" || ev.Item.Type != "function_call" || ev.OutputIndex != 0 {
			t.Errorf("restarted at %s of a %q at %d, want response.output_item.added of a function_call at 0", ev.Type, ev.Item.Type, ev.OutputIndex)
		}
		const args = `{"city":"Paris"}`
		if len(final.Output) != 1 || final.Output[0].Type != "function_call" || final.Output[0].Arguments.OfString != args {
			t.Errorf("final output = %+v, want the one whole call", final.Output)
		}
		if len(snap.Output) != 1 || snap.Output[0].Arguments != args {
			t.Errorf("accumulated output = %+v, want the one whole call", snap.Output)
		}
		if k, want := kinds(s.Timing()), []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptRestart}; !slices.Equal(k, want) {
			t.Errorf("kinds = %v, want %v", k, want)
		}
	})
}

// OpenAI's own Responses stream, replayed, stalls after its third delta
// and is continued by a second response of OpenAI's (the same sample
// under another response id, message id and created_at): the caller
// reads the first response, its sequence numbers, id, created_at and
// message, with the whole text in the done events and the final output,
// and usage over the whole output (3 tokens delivered, then 12).
func TestRouterResponsePublishedContinuation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		first := publishedResponse(t)
		var reads []recordedRead
		for deltas := 0; deltas < 3; {
			rd := first.Reads[len(reads)]
			if strings.HasPrefix(rd.Data, "event: response.output_text.delta") {
				deltas++
			}
			reads = append(reads, rd)
		}
		// The rest comes only after the call has stopped waiting.
		first.Reads = append(reads, recordedRead{TMS: 10_000, Data: first.Reads[len(reads)].Data})
		second := publishedResponse(t)
		for i := range second.Reads {
			second.Reads[i].Data = strings.NewReplacer("resp_045d", "resp_second_045d", "msg_045d", "msg_second_045d",
				"1761565462", "1761566000").Replace(second.Reads[i].Data)
		}
		var mu sync.Mutex
		requests := 0
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			requests++
			rec := first
			if requests > 1 {
				rec = second
			}
			mu.Unlock()
			replay(rec)(w, r)
		}))
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)),
			tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Continue: true}, route("a"), route("b"))
		if err != nil {
			t.Fatalf("NewRouter() error = %v", err)
		}
		s := r.NewResponseStreaming(context.Background(), respond("a", 100))
		evs, restarts := readEvents(s)
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		const whole = "Greetings, hello" + "Greetings, hello, hi, hey, salutations!"
		if s.Text() != whole {
			t.Errorf("Text() = %q, want %q", s.Text(), whole)
		}
		final, snap := checkOneResponse(t, evs, restarts)
		checkOneMessage(t, evs, final, whole)
		if final.ID != evs[0].Response.ID || !strings.HasPrefix(final.ID, "resp_045d") || final.CreatedAt != 1761565462 {
			t.Errorf("final response id %q created_at %v, want the first's, %q, 1761565462", final.ID, final.CreatedAt, evs[0].Response.ID)
		}
		if snap.OutputText() != whole || snap.ResponseID != final.ID {
			t.Errorf("accumulated text %q of %q, want %q of %q", snap.OutputText(), snap.ResponseID, whole, final.ID)
		}
		tm := s.Timing()
		if u := final.Usage; u.InputTokens != 13 || u.OutputTokens != 15 || u.TotalTokens != 28 || tm.OutputTokens != 15 {
			t.Errorf("final usage %d/%d/%d, Timing.OutputTokens %d; want 13/15/28, 15", u.InputTokens, u.OutputTokens, u.TotalTokens, tm.OutputTokens)
		}
		for i, rd := range reads {
			_, data, _ := strings.Cut(strings.TrimSpace(rd.Data), "data: ")
			if evs[i].RawJSON() != data {
				t.Errorf("event %d RawJSON() = %s, want the first route's, unchanged: %s", i, evs[i].RawJSON(), data)
			}
		}
		if got := len(evs); got != 4+3+11+4 {
			t.Errorf("%d events, want %d: the first's 7, the second's 11 deltas and 4 closing events", got, 4+3+11+4)
		}
	})
}

// A continuation that answers with a function call instead of carrying
// on the text: the call follows the caller's message at the next
// output_index, and the final output holds both, the message as the
// caller received it (incomplete), so that its text is Text().
func TestRouterResponseContinuationCallsTool(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		timing := simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec}
		r := stallingRouter(t, 3, timing, timing, replyWords(10),
			simulate.WithToolCalls(func(ri simulate.ReplyInfo) []simulate.ToolCall {
				if ri.Model == "big" {
					return nil
				}
				return []simulate.ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris"}`}}
			}))
		params := respond("big", 100)
		params.Tools = []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "get_weather"}}}
		s := r.NewResponseStreaming(context.Background(), params)
		evs, restarts := readEvents(s)
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		if k, want := kinds(s.Timing()), []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptContinuation}; !slices.Equal(k, want) {
			t.Fatalf("kinds = %v, want %v", k, want)
		}
		final, snap := checkOneResponse(t, evs, restarts)
		var added []string
		for _, ev := range evs {
			if ev.Type == "response.output_item.added" {
				added = append(added, fmt.Sprintf("%s@%d", ev.Item.Type, ev.OutputIndex))
			}
		}
		if want := []string{"message@0", "function_call@1"}; !slices.Equal(added, want) {
			t.Errorf("items added = %v, want %v", added, want)
		}
		text := words(1, 3)
		if s.Text() != text || final.OutputText() != text || snap.OutputText() != text {
			t.Errorf("Text() = %q, final output text %q, accumulated %q; want %q", s.Text(), final.OutputText(), snap.OutputText(), text)
		}
		if len(final.Output) != 2 || final.Output[0].ID != evs[2].Item.ID || final.Output[0].Status != "incomplete" ||
			final.Output[1].Type != "function_call" || final.Output[1].Arguments.OfString != `{"city":"Paris"}` {
			t.Errorf("final output = %+v, want the caller's message, incomplete, then the whole call", final.Output)
		}
	})
}

// A Responses stream continued at a route that announces no message item
// reads as the caller's one response all the same: LiteLLM's fake stream,
// for a model it does not know to stream, sends its text in
// output_text.delta events under the response's id, with no
// output_item.added (litellm/responses/streaming_iterator.py,
// MockResponsesAPIStreamingIterator), or, in its first form and for a
// turn with no text event, only response.completed (BerriAI/litellm#9545,
// #21090). The continuation's text carries on the caller's open message:
// its deltas on that item, and the final response's output that one
// message, completed, with the whole text (before: the caller's message
// "incomplete" with the text it had, the continuation's apart, its
// deltas on an item never added, at an output_index of their own).
func TestRouterResponseContinuesUnannouncedMessage(t *testing.T) {
	cut := sseEvents(
		`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":1765000000,"status":"in_progress","model":"cut","output":[]}}`,
		`{"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_1","object":"response","created_at":1765000000,"status":"in_progress","model":"cut","output":[]}}`,
		`{"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","status":"in_progress","content":[]}}`,
		`{"type":"response.content_part.added","sequence_number":3,"item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}`,
		`{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Latency is "}`)
	completed := finalEvent("response.completed", "completed", "",
		`{"type":"reasoning","id":"rs_2","summary":[]}`, `{"type":"message","id":"msg_2","role":"assistant","status":"completed","content":[{"type":"output_text","text":"the wait.","annotations":[]}]}`)
	for _, tc := range []struct {
		name string
		evs  []string
	}{
		{"response.completed only", []string{completed, "[DONE]"}},
		{"deltas under the response id", []string{
			`{"type":"response.output_text.delta","item_id":"r","output_index":0,"content_index":0,"delta":"the w"}`,
			`{"type":"response.output_text.delta","item_id":"r","output_index":0,"content_index":0,"delta":"ait."}`,
			completed, "[DONE]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, byModel(map[string]http.Handler{"cut": cut, "fake": sseEvents(tc.evs...)}))
				r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)),
					tokenpace.Policy{Continue: true, Budget: tokenpace.Budget{Gap: 500 * msec}}, route("cut"), route("fake"))
				if err != nil {
					t.Fatal(err)
				}
				s := r.NewResponseStreaming(context.Background(), respond("cut", 64))
				evs, restarts := readEvents(s)
				const want = "Latency is the wait."
				if s.Text() != want || s.Err() != nil {
					t.Fatalf("Text() = %q, Err() = %v; want %q, nil", s.Text(), s.Err(), want)
				}
				final, _ := checkOneResponse(t, evs, restarts)
				for i, ev := range evs {
					if ev.Type == "response.output_text.delta" && (ev.ItemID != "msg_1" || ev.OutputIndex != 0) {
						t.Errorf("event %d, a delta, on item %q at %d; want msg_1 at 0", i, ev.ItemID, ev.OutputIndex)
					}
				}
				var msgs []string
				for _, it := range final.Output {
					if it.Type == "message" {
						msgs = append(msgs, it.ID+" "+it.Status)
					}
				}
				if fmt.Sprint(msgs) != "[msg_1 completed]" || final.OutputText() != want {
					t.Errorf("final output's messages %q, text %q; want [msg_1 completed], %q", msgs, final.OutputText(), want)
				}
			})
		})
	}
}
