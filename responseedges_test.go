package tokenpace_test

// Edges of the Responses API through a Router: what the caller holds when
// a response ends, is refused, is continued or restarted, or runs in the
// background.

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
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// eventsSSE builds a Responses event stream: each event gets the next
// sequence number, and an arrival time in ms.
type eventsSSE struct {
	seq   int
	reads []recordedRead
}

func (b *eventsSSE) ev(tms float64, typ, fields string) *eventsSSE {
	data := fmt.Sprintf("{\"type\":%q,\"sequence_number\":%d%s}", typ, b.seq, fields)
	b.seq++
	b.reads = append(b.reads, recordedRead{TMS: tms, Data: "event: " + typ + "\ndata: " + data + "\n\n"})
	return b
}

func (b *eventsSSE) rec() recording {
	return recording{Status: 200, HeadersMS: 5, Headers: map[string]string{"Content-Type": "text/event-stream"}, Reads: b.reads}
}

func responseFields(id, status, output, usage string) string {
	s := fmt.Sprintf(`,"response":{"id":%q,"object":"response","created_at":1700000000,"model":"m","status":%q,"output":%s`, id, status, output)
	if usage != "" {
		s += `,"usage":` + usage
	}
	return s + "}"
}

func messageItem(id, status, text string) string {
	if status == "in_progress" {
		return fmt.Sprintf(`{"id":%q,"type":"message","status":"in_progress","role":"assistant","content":[]}`, id)
	}
	return fmt.Sprintf(`{"id":%q,"type":"message","status":%q,"role":"assistant","content":[{"type":"output_text","text":%q,"annotations":[],"logprobs":[]}]}`, id, status, text)
}

func reasoningItem(id string, summary string) string {
	if summary == "" {
		return fmt.Sprintf(`{"id":%q,"type":"reasoning","summary":[]}`, id)
	}
	return fmt.Sprintf(`{"id":%q,"type":"reasoning","summary":[{"type":"summary_text","text":%q}]}`, id, summary)
}

// writeAnswer writes a standard OpenAI reasoning-model response: reasoning
// with summary deltas, then a message with text deltas, response.completed.
// stallAfter > 0 writes only that many text deltas, then the rest at 10 s.
func writeAnswer(b *eventsSSE, id, rs, msg string, summary []string, text []string, usage string, t0 float64) {
	b.ev(t0, "response.created", responseFields(id, "in_progress", "[]", ""))
	b.ev(t0, "response.in_progress", responseFields(id, "in_progress", "[]", ""))
	idx := 0
	out := []string{}
	if rs != "" {
		b.ev(t0+10, "response.output_item.added", fmt.Sprintf(`,"output_index":0,"item":%s`, reasoningItem(rs, "")))
		b.ev(t0+10, "response.reasoning_summary_part.added", fmt.Sprintf(`,"item_id":%q,"output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}`, rs))
		for i, d := range summary {
			b.ev(t0+20+float64(i)*10, "response.reasoning_summary_text.delta", fmt.Sprintf(`,"item_id":%q,"output_index":0,"summary_index":0,"delta":%q`, rs, d))
		}
		all := strings.Join(summary, "")
		tt := t0 + 20 + float64(len(summary))*10
		b.ev(tt, "response.reasoning_summary_text.done", fmt.Sprintf(`,"item_id":%q,"output_index":0,"summary_index":0,"text":%q`, rs, all))
		b.ev(tt, "response.reasoning_summary_part.done", fmt.Sprintf(`,"item_id":%q,"output_index":0,"summary_index":0,"part":{"type":"summary_text","text":%q}`, rs, all))
		b.ev(tt, "response.output_item.done", fmt.Sprintf(`,"output_index":0,"item":%s`, reasoningItem(rs, all)))
		out = append(out, reasoningItem(rs, all))
		idx = 1
		t0 = tt
	}
	b.ev(t0+10, "response.output_item.added", fmt.Sprintf(`,"output_index":%d,"item":%s`, idx, messageItem(msg, "in_progress", "")))
	b.ev(t0+10, "response.content_part.added", fmt.Sprintf(`,"item_id":%q,"output_index":%d,"content_index":0,"part":{"type":"output_text","text":"","annotations":[],"logprobs":[]}`, msg, idx))
	for i, d := range text {
		b.ev(t0+20+float64(i)*10, "response.output_text.delta", fmt.Sprintf(`,"item_id":%q,"output_index":%d,"content_index":0,"delta":%q,"logprobs":[]`, msg, idx, d))
	}
	all := strings.Join(text, "")
	tt := t0 + 20 + float64(len(text))*10
	b.ev(tt, "response.output_text.done", fmt.Sprintf(`,"item_id":%q,"output_index":%d,"content_index":0,"text":%q,"logprobs":[]`, msg, idx, all))
	b.ev(tt, "response.content_part.done", fmt.Sprintf(`,"item_id":%q,"output_index":%d,"content_index":0,"part":{"type":"output_text","text":%q,"annotations":[],"logprobs":[]}`, msg, idx, all))
	b.ev(tt, "response.output_item.done", fmt.Sprintf(`,"output_index":%d,"item":%s`, idx, messageItem(msg, "completed", all)))
	out = append(out, messageItem(msg, "completed", all))
	b.ev(tt, "response.completed", responseFields(id, "completed", "["+strings.Join(out, ",")+"]", usage))
}

// stallAfterDelta keeps rec's reads up to its k-th output_text.delta, then sends
// the next read only at 10 s.
func stallAfterDelta(rec recording, k int) recording {
	var reads []recordedRead
	n := 0
	for i, rd := range rec.Reads {
		reads = append(reads, rd)
		if strings.HasPrefix(rd.Data, "event: response.output_text.delta") {
			n++
			if n == k {
				if i+1 < len(rec.Reads) {
					reads = append(reads, recordedRead{TMS: 10_000, Data: rec.Reads[i+1].Data})
				}
				break
			}
		}
	}
	rec.Reads = reads
	return rec
}

func callItem(id, callID, status, args string) string {
	return fmt.Sprintf(`{"id":%q,"type":"function_call","status":%q,"call_id":%q,"name":"get_weather","arguments":%q}`, id, status, callID, args)
}

// writeCall writes a response that is one function call, its arguments in
// the given deltas.
func writeCall(b *eventsSSE, id, fc, callID string, args []string, usage string, t0 float64) {
	b.ev(t0, "response.created", responseFields(id, "in_progress", "[]", ""))
	b.ev(t0, "response.in_progress", responseFields(id, "in_progress", "[]", ""))
	b.ev(t0+10, "response.output_item.added", `,"output_index":0,"item":`+callItem(fc, callID, "in_progress", ""))
	for i, d := range args {
		b.ev(t0+20+float64(i)*10, "response.function_call_arguments.delta", fmt.Sprintf(`,"item_id":%q,"output_index":0,"delta":%q`, fc, d))
	}
	all := strings.Join(args, "")
	tt := t0 + 20 + float64(len(args))*10
	b.ev(tt, "response.function_call_arguments.done", fmt.Sprintf(`,"item_id":%q,"output_index":0,"arguments":%q`, fc, all))
	b.ev(tt, "response.output_item.done", `,"output_index":0,"item":`+callItem(fc, callID, "completed", all))
	b.ev(tt, "response.completed", responseFields(id, "completed", "["+callItem(fc, callID, "completed", all)+"]", usage))
}

// stallAfterRead keeps rec's first n reads, then sends the next only at 10 s.
func stallAfterRead(rec recording, n int) recording {
	reads := append([]recordedRead(nil), rec.Reads[:n]...)
	reads = append(reads, recordedRead{TMS: 10_000, Data: rec.Reads[n].Data})
	rec.Reads = reads
	return rec
}

// servingRouter serves recs in turn, one per request, records the request
// bodies, and routes over two routes "a" and "b".
func servingRouter(t *testing.T, pol tokenpace.Policy, recs ...recording) (*tokenpace.Router, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var bodies []string
	url, hc, _ := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		mu.Lock()
		i := len(bodies)
		bodies = append(bodies, string(body))
		mu.Unlock()
		replay(recs[min(i, len(recs)-1)])(w, r)
	})
	rt, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), pol, route("a"), route("b"), route("c"))
	if err != nil {
		t.Fatal(err)
	}
	return rt, &bodies
}

// TestResponseRefusalRestarts: a refusal cut mid-stream cannot be carried
// on by a continuation, which carries text (its assistant prefix would be
// empty, and the continued answer an answer, the refusal lost with a nil
// error): the next route is sent the original request and its answer
// replaces the caller's, Restarted telling it so.
func TestResponseRefusalRestarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := `{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":15}`
		var b1 eventsSSE
		b1.ev(10, "response.created", responseFields("resp_1", "in_progress", "[]", ""))
		b1.ev(10, "response.in_progress", responseFields("resp_1", "in_progress", "[]", ""))
		b1.ev(10, "response.output_item.added", `,"output_index":0,"item":`+messageItem("msg_1", "in_progress", ""))
		b1.ev(10, "response.content_part.added", `,"item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"refusal","refusal":""}`)
		b1.ev(20, "response.refusal.delta", `,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"I can"`)
		b1.ev(30, "response.refusal.delta", `,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"not help"`)
		b1.ev(10000, "response.refusal.delta", `,"item_id":"msg_1","output_index":0,"content_index":0,"delta":" x"`)
		var b2 eventsSSE
		writeAnswer(&b2, "resp_2", "", "msg_2", nil, []string{"Here", " it is."}, u, 10)
		r, bodies := servingRouter(t, tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Continue: true}, b1.rec(), b2.rec())
		s := r.NewResponseStreaming(context.Background(), respond("m", 100))
		evs, restarts := readEvents(s)
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want the restarted answer", err)
		}
		if k := kinds(s.Timing()); !slices.Equal(k, []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptRestart}) || len(restarts) != 1 {
			t.Fatalf("kinds %v, %d restarts; want a restart after the refusal", k, len(restarts))
		}
		final, _ := checkOneResponse(t, evs, restarts)
		if got := final.OutputText(); got != "Here it is." || s.Text() != "Here it is." {
			t.Errorf("final output text %q, Text() %q; want the restart's %q alone", got, s.Text(), "Here it is.")
		}
		if len(*bodies) != 2 || strings.Contains((*bodies)[1], `"role":"assistant"`) {
			t.Errorf("requests %q; want the original request sent again, without an assistant prefix", *bodies)
		}
	})
}

// TestResponseBackgroundAnsweredOnce: a whole response asked for in the
// background (background: true) comes back queued, with no output yet:
// it is the answer, the response to poll, not an empty one another route
// should be asked for; before, every route was asked in turn, each
// creating a background response of its own (and billing it).
func TestResponseBackgroundAnsweredOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n int
		var mu sync.Mutex
		url, hc, _ := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			mu.Lock()
			n++
			id := n
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"resp_bg%d","object":"response","created_at":1700000000,"model":"m","status":"queued","background":true,"output":[],"usage":null}`, id)
		})
		rt, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tokenpace.Policy{}, route("a"), route("b"), route("c"))
		if err != nil {
			t.Fatal(err)
		}
		p := respond("m", 100)
		p.Background = openai.Bool(true)
		var tm *tokenpace.Timing
		res, err := rt.NewResponse(context.Background(), p, tokenpace.WithTimingInto(&tm))
		if err != nil {
			t.Fatalf("NewResponse(background) error = %v, want the queued response", err)
		}
		if n != 1 || res.ID != "resp_bg1" || res.Status != "queued" || tm.FinishReason != "" || tm.ResponseID != "resp_bg1" {
			t.Errorf("%d requests, response %s %s (Timing's %q), finish %q, outcomes %v; want 1 request, resp_bg1 queued, no finish reason",
				n, res.ID, res.Status, tm.ResponseID, tm.FinishReason, outcomes(tm))
		}
	})
}

// OpenAI's Responses API (and Azure's) refuses max_output_tokens below 16
// with a 400 ("Invalid 'max_output_tokens': integer below minimum value.
// Expected a value >= 16"). A continuation near the end of the budget asks
// for 16 all the same, rather than fewer, which failed the call.
func TestResponseContinuationMaxOutputTokensBelowMinimum(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := `{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":4,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":14}`
		words := []string{"a", " b", " c", " d", " e", " f", " g", " h", " i", " j", " k", " l", " m"}
		var b1, b2 eventsSSE
		writeAnswer(&b1, "resp_1", "", "msg_1", nil, words, u, 10)
		writeAnswer(&b2, "resp_2", "", "msg_2", nil, []string{" n", " o"}, u, 10)
		first := stallAfterDelta(b1.rec(), 10)
		var mu sync.Mutex
		var sent []int64
		url, hc, _ := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			var req struct {
				MaxOutputTokens int64 `json:"max_output_tokens"`
			}
			_ = json.Unmarshal(body, &req)
			mu.Lock()
			sent = append(sent, req.MaxOutputTokens)
			n := len(sent)
			mu.Unlock()
			if req.MaxOutputTokens < 16 { // as api.openai.com answers
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(400)
				fmt.Fprintf(w, `{"error":{"message":"Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got %d instead.","type":"invalid_request_error","param":"max_output_tokens","code":"integer_below_min_value"}}`, req.MaxOutputTokens)
				return
			}
			if n == 1 {
				replay(first)(w, r)
				return
			}
			replay(b2.rec())(w, r)
		})
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)),
			tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Continue: true}, route("a"), route("b"))
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewResponseStreaming(context.Background(), respond("m", 20))
		readEvents(s)
		if err := s.Err(); err != nil {
			t.Errorf("Err() = %v after max_output_tokens %v were sent; want the continued answer", err, sent)
		}
	})
}

// TestResponseRestartResponseID: after a restart, the events the caller
// reads keep the first response's id (so that openai-go's accumulator
// takes them as one response), but the call they hold (call_B) is in the
// response the restart's server stored, resp_2: an agent that gives the
// final event's id as previous_response_id, with call_B's output, names a
// response that never made that call, and the server refuses it.
// Timing.ResponseID, and the last attempt's, name resp_2.
func TestResponseRestartResponseID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := `{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":8,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":18}`
		var b1, b2 eventsSSE
		writeCall(&b1, "resp_1", "fc_1", "call_A", []string{`{"city"`, `:"Paris"}`}, u, 10)
		writeCall(&b2, "resp_2", "fc_2", "call_B", []string{`{"city"`, `:"Paris"}`}, u, 10)
		// resp_1 stalls after its first arguments delta (reads: created, in_progress, added, delta).
		r, _ := servingRouter(t, tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Continue: true}, stallAfterRead(b1.rec(), 4), b2.rec())
		s := r.NewResponseStreaming(context.Background(), respond("m", 100))
		evs, restarts := readEvents(s)
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v", err)
		}
		tm := s.Timing()
		if k := kinds(tm); len(k) != 2 || k[1] != tokenpace.AttemptRestart {
			t.Fatalf("kinds = %v, want a restart", k)
		}
		final, _ := checkOneResponse(t, evs, restarts)
		if len(final.Output) != 1 || final.Output[0].CallID != "call_B" || final.ID != "resp_1" {
			t.Fatalf("final response %s with output %+v, want resp_1 holding call_B", final.ID, final.Output)
		}
		if tm.ResponseID != "resp_2" || tm.Attempts[0].ResponseID != "resp_1" || tm.Attempts[1].ResponseID != "resp_2" {
			t.Errorf("Timing.ResponseID %q, attempts' %q and %q; want resp_2, and resp_1 then resp_2",
				tm.ResponseID, tm.Attempts[0].ResponseID, tm.Attempts[1].ResponseID)
		}
	})
}

// A server that keeps the body open a while after response.completed
// (a keep-alive comment, a proxy slow to end the chunked body): the
// answer is whole at response.completed, and ends there; before, the Gap
// budget ran on past it and the Router continued the finished answer,
// the caller reading a second message after it, with a nil error.
func TestResponseGapAfterCompleted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := `{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":3,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":13}`
		var b1, b2 eventsSSE
		writeAnswer(&b1, "resp_1", "", "msg_1", nil, []string{"Hel", "lo", "!"}, u, 10)
		rec := b1.rec()
		rec.Reads = append(rec.Reads, recordedRead{TMS: 600, Data: ": keep-alive\n\n"})
		writeAnswer(&b2, "resp_2", "", "msg_2", nil, []string{" more"}, u, 10)
		r, bodies := servingRouter(t, tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Continue: true}, rec, b2.rec())
		s := r.NewResponseStreaming(context.Background(), respond("m", 100))
		readEvents(s)
		tm := s.Timing()
		if err := s.Err(); err != nil || len(*bodies) != 1 || s.Text() != "Hello!" {
			t.Errorf("Err() = %v, %d requests, text %q; want nil, 1, %q", err, len(*bodies), s.Text(), "Hello!")
		}
		if e2e := tm.E2E(); e2e >= 600*msec {
			t.Errorf("E2E = %v, want the answer's end at response.completed, not the body's at 600ms", e2e)
		}
	})
}

// TestResponseAccumulatedFinishAndUsage: a Responses stream's
// Accumulated() has the finish reason and the usage its final event gave,
// as Timing has them.
func TestResponseAccumulatedFinishAndUsage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b eventsSSE
		writeAnswer(&b, "resp_1", "rs_1", "msg_1", []string{"Think", "ing"}, []string{"Hel", "lo", " there"},
			`{"input_tokens":10,"input_tokens_details":{"cached_tokens":4},"output_tokens":50,"output_tokens_details":{"reasoning_tokens":45},"total_tokens":60}`, 10)
		url, hc := serve(t, replay(b.rec()))
		c := tokenpace.NewClient(openaiClient(url, hc))
		s := c.NewResponseStreaming(context.Background(), respond("m", 100))
		_, text, _ := readResponse(s, time.Now())
		tm := s.Timing()
		acc := s.Accumulated()
		if err := s.Err(); err != nil || text != "Hello there" {
			t.Fatalf("Err() = %v, text %q; want nil, %q", err, text, "Hello there")
		}
		// Stream.Accumulated's doc: "A completion's or a response's is
		// accumulated from its chat view: per choice its text ..., finish
		// reason and usage", "Its Usage is the last the server reported".
		if tm.ResponseID != "resp_1" {
			t.Errorf("Timing.ResponseID = %q, want resp_1", tm.ResponseID)
		}
		if acc.Choices[0].FinishReason != "stop" || acc.Usage.CompletionTokens != 50 || acc.Usage.PromptTokens != 10 {
			t.Errorf("Accumulated() finish %q, usage %d/%d; want stop, 10/50 as response.completed said (Timing has %q, %d/%d)",
				acc.Choices[0].FinishReason, acc.Usage.PromptTokens, acc.Usage.CompletionTokens, tm.FinishReason, tm.PromptTokens, tm.OutputTokens)
		}
	})
}
