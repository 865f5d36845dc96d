package simulate_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace/simulate"
)

// The faults a client's fault matrix needs beyond status codes, stalls and
// resets, as they appear on the wire.
func TestWireFaults(t *testing.T) {
	tests := []struct {
		header string
		check  func(t *testing.T, x exchange)
	}{
		{"wrong-content-type", func(t *testing.T, x exchange) {
			if x.status != http.StatusOK || !strings.HasPrefix(x.header.Get("Content-Type"), "text/html") || !strings.Contains(x.body, "<html>") {
				t.Errorf("status %d, Content-Type %q, body %q, want 200 with an HTML page", x.status, x.header.Get("Content-Type"), x.body)
			}
		}},
		{"truncated;after=2", func(t *testing.T, x exchange) {
			var texts []string
			var last event
			for _, e := range x.events {
				if e.data == "[DONE]" || strings.Contains(e.data, `"finish_reason":"`) {
					t.Errorf("event %q after a truncation, want none of finish or [DONE]", e.data)
				}
				if !strings.Contains(e.data, `"role"`) {
					texts = append(texts, e.data)
					last = e
				}
			}
			if x.err != nil || len(texts) != 2 || last.at != ms(110) {
				t.Errorf("body error %v, content events %q, want 2 (the second at 110ms) and a clean end", x.err, texts)
			}
		}},
		{"oversized;after=1;size=5000", func(t *testing.T, x exchange) {
			var sizes []int
			for _, e := range x.events {
				if !strings.Contains(e.data, `"role"`) {
					sizes = append(sizes, len("data: ")+len(e.data))
				}
			}
			if x.err != nil || len(sizes) < 3 || sizes[1] != 5000 || x.events[len(x.events)-1].data != "[DONE]" {
				t.Errorf("body error %v, event line sizes %v, want the second line 5000 bytes and the stream complete", x.err, sizes)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100), ITL: ms(10)}))
				tt.check(t, post(t, ts, "/v1/chat/completions", fmt.Sprintf(streamBody, 4), map[string]string{simulate.FaultHeader: tt.header}))
				synctest.Wait()
				if s, _ := ts.Stats("m"); s.Running != 0 {
					t.Errorf("running after the response = %d, want 0", s.Running)
				}
			})
		})
	}
}

// A reset before headers leaves the client without a response.
func TestResetBeforeHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100)}))
		req, _ := http.NewRequest(http.MethodPost, strings.TrimSuffix(ts.URL, "/v1/")+"/v1/chat/completions", strings.NewReader(fmt.Sprintf(streamBody, 2)))
		req.Header.Set(simulate.FaultHeader, "reset-before-headers")
		res, err := ts.Client.Do(req)
		if err == nil {
			res.Body.Close()
			t.Fatalf("POST with reset-before-headers = %d, want an error", res.StatusCode)
		}
		if s, _ := ts.Stats("m"); s.PromptTokens != 0 {
			t.Errorf("engine admitted %d prompt tokens, want 0", s.PromptTokens)
		}
	})
}
