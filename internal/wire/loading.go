package wire

import (
	"bytes"
	"encoding/json"
	"strings"
)

// A proxy's notes while it loads a model.
//
// llama-swap (mostlygeek/llama-swap), the proxy that starts and stops
// llama.cpp's servers (and vLLM's, and others) on demand, can answer a
// streamed chat request for a model that is not loaded before the model
// is there (sendLoadingState, since October 2025: its #366, #371): it
// writes the response headers at once, then, until the server it starts
// answers, events of its own whose delta holds only reasoning_content:
// a banner of heavy lines, "llama-swap loading model: NAME", a dot every
// 750 ms, remarks in jest, and "Done! (2.26s)". The server's own answer
// follows in the same body. A caller would take those notes for the
// model's reasoning: its first token, the gaps between its tokens and
// the reasoning text it sends back in the next turn would be the proxy's.
//
// The notes have a shape no server's chunk has: no id, object, model or
// index, nothing but the reasoning_content of one delta, marshalled by
// Go's encoding/json. The first begins with the banner.

// LoadingBanner is how the first of llama-swap's loading notes begins.
const LoadingBanner = "━━━━━"

var (
	loadingPrefix = []byte(`{"choices":[{"delta":{"reasoning_content":`)
	loadingSuffix = []byte(`}}]}`)
)

// LoadingNote reports whether data, an event's data, is one of
// llama-swap's loading notes in shape, and returns its text.
func LoadingNote(data []byte) (string, bool) {
	if !bytes.HasPrefix(data, loadingPrefix) || !bytes.HasSuffix(data, loadingSuffix) {
		return "", false
	}
	raw := data[len(loadingPrefix) : len(data)-len(loadingSuffix)]
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	var text string
	if json.Unmarshal(raw, &text) != nil {
		return "", false
	}
	return text, true
}

// LoadingNotes reads a chat stream's first events for llama-swap's loading
// notes: the zero value expects them; Skip tells which events are notes.
type LoadingNotes struct {
	state uint8 // 0: before the first event; 1: in the notes; 2: past them
}

// NoLoadingNotes returns a LoadingNotes that expects none: for a stream
// that is not a chat completion, which llama-swap sends no notes in.
func NoLoadingNotes() LoadingNotes { return LoadingNotes{state: 2} }

// Skip reports whether data, the stream's next event, is one of
// llama-swap's loading notes: an event of their shape that is the
// stream's first and begins with LoadingBanner, or follows such notes.
// The first event that is not a note ends them; Skip then costs one
// comparison per event.
func (n *LoadingNotes) Skip(data []byte) bool {
	if n.state == 2 {
		return false
	}
	text, ok := LoadingNote(data)
	if ok && (n.state == 1 || strings.HasPrefix(text, LoadingBanner)) {
		n.state = 1
		return true
	}
	n.state = 2
	return false
}
