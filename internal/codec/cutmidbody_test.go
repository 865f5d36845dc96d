package codec

import (
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestMalformedCut: the error of an event cut short (IsEventCut) becomes,
// once the body went on after it, a malformed event's: not truncated,
// not the server's error, its decode error kept.
func TestMalformedCut(t *testing.T) {
	c := Chat(openai.ChatCompletionNewParams{}, false)
	_, err := c.Decode([]byte(`{"choices":[{"index":0,"delta":{"content":" line one`))
	if !IsEventCut(err) {
		t.Fatalf("Decode err = %v, want an event cut short", err)
	}
	var e *Error
	if m := MalformedCut(err); !errors.As(m, &e) || e.Truncated || e.Server != nil || e.Err == nil || IsEventCut(m) {
		t.Errorf("MalformedCut(%v) = %+v, want a malformed event with its cause", err, m)
	}
	if _, err := c.Decode([]byte(`{"choices":x}`)); IsEventCut(err) {
		t.Errorf("Decode of a wrong byte: %v read as an event cut short", err)
	}
}
