package tokenpace

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// TestAnswerStart: a chunk that opens an assistant message under a new id,
// after chunks that carried one id and output, begins the answer again
// (Chutes' retry on its next instance:
// testdata/conformance/chutes-instance-lost-answer-again.jsonl); a server
// that changes the id on every chunk, or sends the role on every delta,
// does not.
func TestAnswerStart(t *testing.T) {
	const (
		role = `{"role":"assistant","content":""}`
		text = `{"content":"Hi"}`
		both = `{"role":"assistant","content":"Hi"}`
	)
	for _, tt := range []struct {
		name   string
		chunks [][2]string // id, first choice's delta
		want   int         // index of the chunk that begins again, -1 for none
	}{
		{"Chutes: a second instance's answer", [][2]string{{"a", role}, {"a", text}, {"a", text}, {"b", role}, {"b", text}}, 3},
		{"role and text in one chunk, then again", [][2]string{{"a", both}, {"a", text}, {"b", both}}, 2},
		{"Foundry Local: an id per chunk, the role on each", [][2]string{{"a", both}, {"b", both}, {"c", both}, {"d", both}}, -1},
		{"Z.ai: the role on every delta, one id", [][2]string{{"a", both}, {"a", both}, {"a", both}}, -1},
		{"no output before the new id", [][2]string{{"a", role}, {"a", role}, {"b", role}}, -1},
		{"one chunk before the new id", [][2]string{{"a", both}, {"b", both}}, -1},
		{"a new id without the role", [][2]string{{"a", both}, {"a", text}, {"b", text}, {"c", role}}, -1},
		{"chunks without an id", [][2]string{{"", both}, {"a", text}, {"", text}, {"a", text}, {"b", role}}, 4},
	} {
		var s answerStart
		got := -1
		for i, c := range tt.chunks {
			ch := chunk(t, c[0], c[1])
			if s.again(ch, outputs(ch)) && got < 0 {
				got = i
			}
		}
		if got != tt.want {
			t.Errorf("%s: begun again at chunk %d, want %d", tt.name, got, tt.want)
		}
	}
	var s answerStart
	if s.again(nil, 0) {
		t.Error("again(nil) = true, want false")
	}
}

// chunk returns a chat chunk of id whose one choice has delta.
func chunk(t *testing.T, id, delta string) *openai.ChatCompletionChunk {
	t.Helper()
	var c openai.ChatCompletionChunk
	if err := json.Unmarshal([]byte(`{"id":"`+id+`","object":"chat.completion.chunk","choices":[{"index":0,"delta":`+delta+`}]}`), &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// TestAnswerStartResponses: a response.created under a new id, after
// events that carried output, begins a Responses answer again (LiteLLM's
// proxy forwarding its fallback's lifecycle:
// testdata/conformance/litellm-responses-midstream-fallback-*.jsonl); one
// before any output begins it anew; one that repeats the response's id
// does neither.
func TestAnswerStartResponses(t *testing.T) {
	type event struct {
		typ, id string // the event's type, and its response's id
		outputs int
		call    bool
	}
	created := func(id string) event { return event{typ: "response.created", id: id} }
	text := event{typ: "response.output_text.delta", outputs: 1}
	call := event{typ: "response.output_item.done", outputs: 1, call: true}
	added := event{typ: "response.output_item.added"}
	for _, tt := range []struct {
		name   string
		events []event
		again  int   // index of the event that begins again, -1 for none
		anew   []int // indexes of the events that begin anew
	}{
		{"LiteLLM: a call, then the fallback's lifecycle", []event{created("a"), added, call, created("b"), added, call}, 3, []int{0}},
		{"LiteLLM: text, then the fallback's continuation", []event{created("a"), text, text, created("b"), text}, 3, []int{0}},
		{"LiteLLM: no output before the fallback's lifecycle", []event{created("a"), created("b"), text}, -1, []int{0, 1}},
		{"an item added but nothing of it sent", []event{created("a"), added, created("b"), text}, -1, []int{0, 2}},
		{"LiteLLM: a call announced but nothing of it sent", []event{created("a"), {typ: "response.output_item.added", call: true}, created("b"), call}, -1, []int{0, 2}},
		{"the same response created again", []event{created("a"), text, created("a"), text}, -1, []int{0}},
		{"no id in the first lifecycle", []event{created(""), text, created("b"), text}, -1, nil},
		{"OmniRoute: its keepalive, then the upstream's", []event{{typ: "response.in_progress", id: "resp_keepalive_omniroute"}, created("a"), text}, -1, []int{1}},
	} {
		var s answerStart
		again := -1
		var anew []int
		for i, e := range tt.events {
			var ev responses.ResponseStreamEventUnion
			if err := json.Unmarshal([]byte(`{"type":"`+e.typ+`","response":{"id":"`+e.id+`"}}`), &ev); err != nil {
				t.Fatal(err)
			}
			switch s.againResponse(&ev, &codec.Event{Outputs: e.outputs, ToolCall: e.call}) {
			case begunAgain:
				if again < 0 {
					again = i
				}
			case begunAnew:
				anew = append(anew, i)
			}
		}
		if again != tt.again || !slices.Equal(anew, tt.anew) {
			t.Errorf("%s: begun again at event %d, anew at %v, want %d and %v", tt.name, again, anew, tt.again, tt.anew)
		}
	}
}

// TestAnswerStartResponsesAllocs: the look at every Responses event for
// a response created again allocates nothing.
func TestAnswerStartResponsesAllocs(t *testing.T) {
	var evs [4]responses.ResponseStreamEventUnion
	for i, data := range []string{
		`{"type":"response.created","response":{"id":"resp_a"}}`,
		`{"type":"response.output_text.delta","delta":"Hi"}`,
		`{"type":"response.output_item.done","item":{"type":"function_call"}}`,
		`{"type":"response.created","response":{"id":"resp_b"}}`,
	} {
		if err := json.Unmarshal([]byte(data), &evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	decoded := [4]codec.Event{{}, {Outputs: 1}, {Outputs: 1, ToolCall: true}, {}}
	var r reading
	if n := testing.AllocsPerRun(1000, func() {
		r.start = answerStart{}
		for i := range evs {
			decoded[i].Orig = &evs[i]
			r.begins(&decoded[i])
		}
	}); n != 0 {
		t.Errorf("begins over 4 Responses events: %v allocations, want 0", n)
	}
}
