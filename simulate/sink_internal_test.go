package simulate

import (
	"testing"
	"time"
)

// halfSender is a direct sender whose connection takes only the first
// half of every chunk.
type halfSender struct{}

func (halfSender) sendDirect(Emission, time.Time) []byte { return []byte("rest of the chunk") }

// A sink closed while a direct send's unwritten rest waits for the
// handler reports it, so that the handler aborts the response rather
// than end the body after half a chunk; once the handler took the rest,
// it does not.
func TestSinkCloseReportsPartialChunk(t *testing.T) {
	for _, tt := range []struct {
		name string
		take bool
		want bool
	}{
		{"rest left", false, true},
		{"rest taken", true, false},
	} {
		s := newSink()
		s.handOver(halfSender{})
		s.push(Emission{ID: 1, Tokens: 1}, time.Now())
		if tt.take {
			if _, rest := s.take(nil); string(rest) != "rest of the chunk" {
				t.Fatalf("%s: take() rest = %q, want the unwritten half", tt.name, rest)
			}
		}
		if got := s.close(); got != tt.want {
			t.Errorf("%s: close() = %v, want %v", tt.name, got, tt.want)
		}
	}
}
