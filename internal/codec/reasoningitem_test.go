package codec

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/responses"
)

// TestReasoningItemText checks that the text events of an open reasoning
// item reach the caller as reasoning, not as the answer's text (LocalAI's
// /v1/responses), and that a message's text, and text after the
// reasoning item is done, stay text.
func TestReasoningItemText(t *testing.T) {
	const (
		reasAdded = `{"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning","id":"r1","status":"in_progress","summary":[]}}`
		reasDelta = `{"type":"response.output_text.delta","item_id":"r1","content_index":0,"delta":"Think."}`
		reasDone  = `{"type":"response.output_text.done","item_id":"r1","content_index":0,"text":"Think. More."}`
		reasItem  = `{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"r1","status":"completed","summary":[]}}`
		msgDelta  = `{"type":"response.output_text.delta","item_id":"m1","content_index":0,"delta":"Answer."}`
		lateDelta = `{"type":"response.output_text.delta","item_id":"r1","content_index":0,"delta":"Late."}`
	)
	type want struct {
		typ, content string
		outputs      int
	}
	for _, tc := range []struct {
		name   string
		events []string
		last   want
	}{
		{"a delta of the reasoning item", []string{reasAdded, reasDelta}, want{respReasoningDelta, "", 1}},
		{"a message's delta beside it", []string{reasAdded, reasDelta, msgDelta}, want{RespTextDelta, "Answer.", 1}},
		{"the reasoning's done text, longer than its deltas", []string{reasAdded, reasDelta, reasDone}, want{respReasoningDone, "", 0}},
		{"the reasoning whole in its done text", []string{reasAdded, reasDone}, want{respReasoningDone, "", 1}},
		{"text under its id once the item is done", []string{reasAdded, reasDelta, reasItem, lateDelta}, want{RespTextDelta, "Late.", 1}},
		{"text under an id no reasoning item has", []string{lateDelta}, want{RespTextDelta, "Late.", 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := decodeResponseEvents(t, tc.events)
			orig, _ := ev.Orig.(*responses.ResponseStreamEventUnion)
			got := want{orig.Type, ev.Chunk.Choices[0].Delta.Content, ev.Outputs}
			if got != tc.last {
				t.Errorf("last event: %+v, want %+v", got, tc.last)
			}
		})
	}
}

// TestReasoningItemTextAsSent checks that the text event of an open
// reasoning item reads as reasoning however the caller reads it: its
// RawJSON, which a Router's continuation decodes again to renumber it,
// and the event AsAny gives, name response.reasoning_text.delta too.
func TestReasoningItemTextAsSent(t *testing.T) {
	dec := DecoderFor(Response(responses.ResponseNewParams{}))
	for _, e := range []string{
		`{"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning","id":"r1","status":"in_progress","summary":[]}}`,
		`{"type":"response.output_text.delta","item_id":"r1","output_index":0,"content_index":0,"delta":"Think."}`,
	} {
		ev, err := dec.Decode([]byte(e))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(e, "output_text.delta") {
			continue // the item's added event
		}
		orig, _ := ev.Orig.(*responses.ResponseStreamEventUnion)
		var again responses.ResponseStreamEventUnion
		if err := json.Unmarshal([]byte(orig.RawJSON()), &again); err != nil || again.Type != respReasoningDelta {
			t.Errorf("RawJSON() decoded again: type %q (%v), want %q", again.Type, err, respReasoningDelta)
		}
		d, ok := orig.AsAny().(responses.ResponseReasoningTextDeltaEvent)
		if !ok || string(d.Type) != respReasoningDelta || d.Delta != "Think." || d.ItemID != "r1" {
			t.Errorf("AsAny() = %T %q %q %q, want a reasoning text delta %q of r1", orig.AsAny(), d.Type, d.Delta, d.ItemID, "Think.")
		}
	}
}
