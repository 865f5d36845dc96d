package tokenpace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
)

// bgWords are the text deltas of the background response bgServer
// streams.
var bgWords = []string{"Latency ", "is ", "the ", "time ", "a ", "request ", "waits."}

// bgEvents returns the events of background response id, as OpenAI
// streams one: created and queued while it waits in the server's queue,
// in_progress, one message, completed; each with its sequence_number.
func bgEvents(id string) []string {
	resp := func(status string) string {
		return fmt.Sprintf(`{"id":%q,"object":"response","created_at":1765000000,"status":%q,"background":true,"model":"bg","output":[]}`, id, status)
	}
	evs := []string{
		`{"type":"response.created","response":` + resp("queued") + `}`,
		`{"type":"response.queued","response":` + resp("queued") + `}`,
		`{"type":"response.in_progress","response":` + resp("in_progress") + `}`,
		`{"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}}`,
		`{"type":"response.content_part.added","item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}`,
	}
	for _, w := range bgWords {
		evs = append(evs, fmt.Sprintf(`{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":%q}`, w))
	}
	text := strings.Join(bgWords, "")
	msg := fmt.Sprintf(`{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":%q,"annotations":[]}]}`, text)
	evs = append(evs,
		fmt.Sprintf(`{"type":"response.output_text.done","item_id":"msg_1","output_index":0,"content_index":0,"text":%q}`, text),
		fmt.Sprintf(`{"type":"response.content_part.done","item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":%q,"annotations":[]}}`, text),
		`{"type":"response.output_item.done","output_index":0,"item":`+msg+`}`,
		fmt.Sprintf(`{"type":"response.completed","response":{"id":%q,"object":"response","created_at":1765000000,"status":"completed","background":true,"model":"bg","output":[%s],"usage":{"input_tokens":5,"output_tokens":%d,"total_tokens":%d}}}`,
			id, msg, len(bgWords), 5+len(bgWords)),
	)
	for i, ev := range evs {
		evs[i] = strings.Replace(ev, "{", `{"sequence_number":`+strconv.Itoa(i)+",", 1)
	}
	return evs
}

// bgServer is a server with OpenAI's background mode: a POST streams a
// background response, which waits queue in the server's queue, and
// breaks after its event cut (a stall, or, with reset, a lost
// connection); GET /responses/{id}?stream=true&starting_after=N streams
// its events after N to the end, or, with noGet, answers 404 as a server
// without background mode does, or, with object, answers the stored
// response whole as JSON, as Llama Stack's (OGX) does, whose GET reads no
// query (src/ogx_api/responses/fastapi_routes.py, get_openai_response),
// or, with fromStart, replays every event
// from the first, as a relay that drops the query would. With end, the
// server ends the response
// itself after event cut: end, with the next sequence number, is its last
// event, which a GET replays, after which the GET waits (a minute), as
// vLLM's does for a response.completed that never comes. A POST for any other model
// than "bg" streams a plain response, its text "rest". POST
// /responses/{id}/cancel answers the response cancelled, or, with
// cancelConflict, 409 as Llama Stack (OGX) answers for a response that
// has already ended (cancel_openai_response's ConflictError).
type bgServer struct {
	cut    int
	reset  bool
	noGet  bool
	object bool
	end    string

	cancelConflict bool

	fromStart bool
	queue     time.Duration

	mu    sync.Mutex
	posts []string // the models posted
	gets  []string // the query of each GET

	cancels int // the POSTs to /responses/{id}/cancel
}

func (b *bgServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	if r.Method == http.MethodGet {
		b.gets = append(b.gets, r.URL.RawQuery)
	}
	b.mu.Unlock()
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/cancel") {
		b.mu.Lock()
		b.cancels++
		b.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if b.cancelConflict {
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"error":{"message":"Cannot cancel response 'resp_bg1' with status 'completed'"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"created_at":1765000000,"id":"resp_bg1","model":"bg","object":"response","output":[],"status":"cancelled","background":true}`))
		return
	}
	if r.Method == http.MethodGet && b.noGet {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":{"message":"Not Found","type":"invalid_request_error","code":null,"param":null}}`))
		return
	}
	if r.Method == http.MethodGet && b.object {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"created_at":1765000000,"id":"resp_bg1","model":"bg","object":"response","output":[],"status":"in_progress","background":true}`))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	send := func(ev string) {
		_, _ = fmt.Fprintf(w, "data: %s\n\n", ev)
		_ = rc.Flush()
	}
	evs := bgEvents("resp_bg1")
	if b.end != "" {
		evs = append(evs[:b.cut+1:b.cut+1], strings.Replace(b.end, "{", `{"sequence_number":`+strconv.Itoa(b.cut+1)+",", 1))
	}
	if r.Method == http.MethodGet {
		after, _ := strconv.Atoi(r.URL.Query().Get("starting_after"))
		if b.fromStart {
			after = -1
		}
		for _, ev := range evs[min(after+1, len(evs)):] {
			send(ev)
		}
		if b.end != "" {
			sleepUntil(r.Context(), time.Now().Add(time.Minute))
		}
		return
	}
	var body struct {
		Model string `json:"model"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	b.mu.Lock()
	b.posts = append(b.posts, body.Model)
	b.mu.Unlock()
	if body.Model != "bg" {
		for _, ev := range bgPlain(body.Model) {
			send(ev)
		}
		return
	}
	start := time.Now()
	for i, ev := range evs[:b.cut+1] {
		if i == 2 && !sleepUntil(r.Context(), start.Add(b.queue)) {
			return
		}
		send(ev)
	}
	if b.end != "" {
		send(evs[b.cut+1])
		return
	}
	if b.reset {
		panic(http.ErrAbortHandler)
	}
	<-r.Context().Done()
}

// bgPlain returns the events of a plain response of model whose text is
// "rest".
func bgPlain(model string) []string {
	msg := `{"id":"msg_2","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"rest","annotations":[]}]}`
	return []string{
		`{"type":"response.created","sequence_number":0,"response":{"id":"resp_2","object":"response","created_at":1765000001,"status":"in_progress","model":"` + model + `","output":[]}}`,
		`{"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_2","object":"response","created_at":1765000001,"status":"in_progress","model":"` + model + `","output":[]}}`,
		`{"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"msg_2","type":"message","status":"in_progress","role":"assistant","content":[]}}`,
		`{"type":"response.content_part.added","sequence_number":3,"item_id":"msg_2","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}`,
		`{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_2","output_index":0,"content_index":0,"delta":"rest"}`,
		`{"type":"response.output_text.done","sequence_number":5,"item_id":"msg_2","output_index":0,"content_index":0,"text":"rest"}`,
		`{"type":"response.content_part.done","sequence_number":6,"item_id":"msg_2","output_index":0,"content_index":0,"part":{"type":"output_text","text":"rest","annotations":[]}}`,
		`{"type":"response.output_item.done","sequence_number":7,"output_index":0,"item":` + msg + `}`,
		`{"type":"response.completed","sequence_number":8,"response":{"id":"resp_2","object":"response","created_at":1765000001,"status":"completed","model":"` + model + `","output":[` + msg + `],"usage":{"input_tokens":9,"output_tokens":1,"total_tokens":10}}}`,
	}
}

// bgRouter returns a Router with Continue over b, on routes "bg" and
// "plain", and a Gap budget of 100ms.
func bgRouter(t *testing.T, b *bgServer) *tokenpace.Router {
	t.Helper()
	url, hc := serve(t, b)
	c := tokenpace.NewClient(openaiClient(url, hc))
	r, err := tokenpace.NewRouter(c, tokenpace.Policy{Budget: tokenpace.Budget{Gap: 100 * msec}, Continue: true}, route("bg"), route("plain"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// background returns params that ask model for a background response.
func background(model string) responses.ResponseNewParams {
	p := respond(model, 64)
	p.Background, p.Store = openai.Bool(true), openai.Bool(true)
	return p
}

// A background response whose stream breaks mid-answer (a stall past
// Gap, a lost connection) is resumed where the caller's events stop:
// one GET with starting_after the last sequence number that arrived, no
// second POST, and the caller reads the server's one response, every
// event once, its text generated once.
//
// A stream that broke after its last text delta is resumed too: the
// server replays only the response's closing events, which carry no
// token, and the caller's response ends with them, nothing added. A
// server that replays every event from the first (a relay that reads the
// GET's JSON body and drops its query, as LiteLLM's proxy does with
// starting_after) gives the caller each event once all the same.
func TestRouterResumesBackgroundResponse(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cut   int // the last event before the break
		reset bool
	}{
		{"stall", 8, false}, // the fourth text delta
		{"reset", 8, true},
		{"stall after the last delta", 4 + len(bgWords), false},
		{"reset after the last delta", 4 + len(bgWords), true},
		{"stall, replayed from the start", 8, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cut := tc.cut
				b := &bgServer{cut: cut, reset: tc.reset, queue: 300 * msec, fromStart: strings.Contains(tc.name, "from the start")}
				r := bgRouter(t, b)
				s := r.NewResponseStreaming(context.Background(), background("bg"))
				evs, _ := readEvents(s)
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				want := strings.Join(bgWords, "")
				if s.Text() != want {
					t.Errorf("Text() = %q, want %q", s.Text(), want)
				}
				all := bgEvents("resp_bg1")
				if len(evs) != len(all) {
					t.Fatalf("events = %v, want the server's %d", eventTypes(evs), len(all))
				}
				for i, ev := range evs {
					if ev.RawJSON() != all[i] {
						t.Errorf("event %d = %s, want %s", i, ev.RawJSON(), all[i])
					}
				}
				if want := []string{"starting_after=" + strconv.Itoa(cut) + "&stream=true"}; fmt.Sprint(b.gets) != fmt.Sprint(want) || len(b.posts) != 1 {
					t.Errorf("GETs %q, POSTs %q; want %q, one", b.gets, b.posts, want)
				}
				tm := s.Timing()
				if k := kinds(tm); fmt.Sprint(k) != "[first continuation]" {
					t.Fatalf("kinds = %v, want [first continuation]", k)
				}
				if a := tm.Attempts; a[1].ResponseID != "resp_bg1" || a[0].ResponseID != "resp_bg1" {
					t.Errorf("attempts' response ids = %q, %q; want resp_bg1 for both", a[0].ResponseID, a[1].ResponseID)
				}
				if tm.OutputTokens != len(bgWords) || !tm.UsageReported {
					t.Errorf("Timing.OutputTokens = %d (reported %v), want %d", tm.OutputTokens, tm.UsageReported, len(bgWords))
				}
				// The server's queue is the caller's wait for its first token.
				if got := tm.TTFT(); got < 300*msec {
					t.Errorf("TTFT() = %v, want at least the 300ms queued", got)
				}
			})
		})
	}
}

// A resume the server does not give goes on as a continuation at the
// next route, as it does without background, never ending on the text it
// had with a nil error: a server without background mode answers the GET
// with 404; Llama Stack's (OGX) answers the stored response whole as
// JSON, not as a stream, replaying no event (it reads neither stream nor
// starting_after: src/ogx_api/responses/fastapi_routes.py,
// get_openai_response).
func TestRouterResumeRefusedContinues(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *bgServer
	}{
		{"404", &bgServer{cut: 8, noGet: true}},
		{"answered whole", &bgServer{cut: 8, object: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := tc.b
				r := bgRouter(t, b)
				s := r.NewResponseStreaming(context.Background(), background("bg"))
				evs, restarts := readEvents(s)
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				if want := "Latency is the time rest"; s.Text() != want {
					t.Errorf("Text() = %q, want %q", s.Text(), want)
				}
				checkSequence(t, evs, restarts)
				tm := s.Timing()
				if k := kinds(tm); fmt.Sprint(k) != "[first continuation continuation]" || len(b.gets) != 1 || fmt.Sprint(b.posts) != "[bg plain]" {
					t.Errorf("kinds %v, GETs %q, POSTs %q; want [first continuation continuation], one, [bg plain]", k, b.gets, b.posts)
				}
			})
		})
	}
}

// A background response that its server ended itself (an error event,
// response.failed, a response.completed whose status is "cancelled") is
// not resumed: the server holds nothing more of it. A GET would replay the
// same end (OpenAI's background mode; vLLM since vllm-project/vllm#49721)
// or, after the last event, wait for a response.completed that never
// comes (vLLM's responses_background_stream_generator before it): with no
// budget, the caller waited as long (here the server's minute). The call
// continues at the next route at once, with no GET.
func TestRouterNoResumeOfEndedResponse(t *testing.T) {
	for _, tc := range []struct{ name, end string }{
		{"error event", `{"type":"error","code":"server_error","message":"The server had an error while processing your request.","param":null}`},
		{"response.failed", `{"type":"response.failed","response":{"id":"resp_bg1","object":"response","created_at":1765000000,"status":"failed","background":true,"model":"bg","output":[],"error":{"code":"server_error","message":"The server had an error while processing your request."}}}`},
		{"completed cancelled", `{"type":"response.completed","response":{"id":"resp_bg1","object":"response","created_at":1765000000,"status":"cancelled","background":true,"model":"bg","output":[],"usage":{"input_tokens":5,"output_tokens":4,"total_tokens":9}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := &bgServer{cut: 8, end: tc.end}
				url, hc := serve(t, b)
				r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tokenpace.Policy{Continue: true}, route("bg"), route("plain"))
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				s := r.NewResponseStreaming(context.Background(), background("bg"))
				readEvents(s)
				if d := time.Since(start); d != 0 {
					t.Errorf("the call took %v, want no wait (virtual time)", d)
				}
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				if want := "Latency is the time rest"; s.Text() != want {
					t.Errorf("Text() = %q, want %q", s.Text(), want)
				}
				if k := kinds(s.Timing()); fmt.Sprint(k) != "[first continuation]" || len(b.gets) != 0 || fmt.Sprint(b.posts) != "[bg plain]" {
					t.Errorf("kinds %v, GETs %q, POSTs %q; want [first continuation], none, [bg plain]", k, b.gets, b.posts)
				}
			})
		})
	}
}

// A request without background is continued as before: no GET.
func TestRouterNoBackgroundNoResume(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &bgServer{cut: 8}
		r := bgRouter(t, b)
		s := r.NewResponseStreaming(context.Background(), respond("bg", 64))
		evs, restarts := readEvents(s)
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		if want := "Latency is the time rest"; s.Text() != want {
			t.Errorf("Text() = %q, want %q", s.Text(), want)
		}
		checkSequence(t, evs, restarts)
		if k := kinds(s.Timing()); fmt.Sprint(k) != "[first continuation]" || len(b.gets) != 0 {
			t.Errorf("kinds %v, GETs %q; want [first continuation], none", k, b.gets)
		}
	})
}

// checkSequence fails t unless evs, read from a Router stream that never
// restarted, carry sequence numbers from 0 without a gap and one
// response id.
func checkSequence(t *testing.T, evs []responses.ResponseStreamEventUnion, restarts []int) {
	t.Helper()
	if len(restarts) > 0 {
		t.Errorf("restarted at %v, want never", restarts)
	}
	for i, ev := range evs {
		if ev.SequenceNumber != int64(i) {
			t.Errorf("event %d (%s) sequence_number = %d, want %d", i, ev.Type, ev.SequenceNumber, i)
		}
		if hasResponse(ev.Type) && ev.Response.ID != evs[0].Response.ID {
			t.Errorf("event %d (%s) response id = %q, want %q", i, ev.Type, ev.Response.ID, evs[0].Response.ID)
		}
	}
}
