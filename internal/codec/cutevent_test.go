package codec

import (
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestEventCutShort decodes the data of events that do not decode: JSON
// whose end is missing, as Targon's hub frames the last bytes it read
// before its timeout, is a cut answer; data with a wrong byte, or a
// second value glued on, stays a malformed event.
func TestEventCutShort(t *testing.T) {
	c := Chat(openai.ChatCompletionNewParams{}, false)
	for _, tc := range []struct {
		name, data string
		cut        bool
	}{
		{"cut in a string", `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":" on`, true},
		{"cut after a colon", `{"choices":`, true},
		{"cut after a brace", `{`, true},
		{"a wrong byte", `{"choices":x}`, false},
		{"closed too often", `{"choices":[]}}`, false},
		{"an array cut", `[{"a":1}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Decode([]byte(tc.data))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Decode(%s) err = %v, want a *Error", tc.data, err)
			}
			if got := e.Truncated && e.Detail == eventCut; got != tc.cut {
				t.Errorf("Decode(%s) = %+v, cut short %v, want %v", tc.data, e, got, tc.cut)
			}
			if e.Server != nil {
				t.Errorf("Decode(%s) read as the server's error %+v", tc.data, e.Server)
			}
		})
	}
}
