package codec

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// detailsChunk returns the event of a chunk whose delta carries details.
func detailsChunk(t *testing.T, details string) *Event {
	t.Helper()
	var c openai.ChatCompletionChunk
	if err := json.Unmarshal([]byte(`{"id":"or-1","object":"chat.completion.chunk","created":1,"model":"google/gemini-3-flash-preview","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning_details":`+details+`}}]}`), &c); err != nil {
		t.Fatal(err)
	}
	ev := chunkEvent(&c, &c)
	if !ev.Details {
		t.Fatal("a chunk with reasoning_details is not marked Details")
	}
	return &ev
}

// TestDetailsPiecesItems checks that reasoning_details streamed in pieces
// add up to the message's items, as OpenRouter streams them: an item per
// type and index, its text in pieces, its other fields whole, in the
// order the items first came.
func TestDetailsPiecesItems(t *testing.T) {
	var d Details
	for _, frag := range []string{
		`[{"type":"reasoning.text","text":"Let me ","format":"google-gemini-v1","index":0}]`,
		`[{"type":"reasoning.text","text":"check \"both\" cities.","index":0}]`,
		`[{"type":"reasoning.encrypted","data":"CiQB","id":"tool_1","format":"google-gemini-v1","index":1}]`,
		`[{"type":"reasoning.encrypted","data":"x9==","index":1}]`,
	} {
		d.Add(detailsChunk(t, frag))
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(d.JSON()), &got); err != nil {
		t.Fatalf("JSON() = %s: %v", d.JSON(), err)
	}
	want := []map[string]any{
		{"type": "reasoning.text", "text": `Let me check "both" cities.`, "format": "google-gemini-v1", "index": 0.0},
		{"type": "reasoning.encrypted", "data": "CiQBx9==", "id": "tool_1", "format": "google-gemini-v1", "index": 1.0},
	}
	if len(got) != len(want) {
		t.Fatalf("JSON() = %s, want %d items", d.JSON(), len(want))
	}
	for i := range want {
		for k, v := range want[i] {
			if got[i][k] != v {
				t.Errorf("item %d: %s = %v, want %v", i, k, got[i][k], v)
			}
		}
	}
}

// TestDetailsBounded checks that an answer whose reasoning details pass
// maxDetailsBytes keeps none, and that one without any gives "".
func TestDetailsBounded(t *testing.T) {
	var d Details
	if d.JSON() != "" {
		t.Errorf("no details: JSON() = %q, want \"\"", d.JSON())
	}
	piece := `[{"type":"reasoning.text","text":"` + strings.Repeat("x", 64<<10) + `","index":0}]`
	for range maxDetailsBytes/(64<<10) + 2 {
		d.Add(detailsChunk(t, piece))
	}
	if d.JSON() != "" || len(d.items) != 0 {
		t.Errorf("over the bound: JSON() of %d bytes, %d items held, want none", len(d.JSON()), len(d.items))
	}
}
