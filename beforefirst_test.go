package tokenpace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestEventsBeforeFirstToken: a server that sends 3,000 chunks without
// output (a role and empty content) before its first token, more than a
// Router's try holds for its caller (4 MiB, decoded). The caller takes
// nothing of a try before its first token, and the try's reader waited
// for room: the Router call hung until its context ended (an hour here;
// for ever without a deadline), a Responses stream of 500 output items
// of a hosted tool before its text too. The try now fails, KindTooLarge,
// and the Router falls back to the next route at once.
func TestEventsBeforeFirstToken(t *testing.T) {
	empty := strings.Repeat(`data: {"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`+"\n\n", 3000)
	answer := `data: {"id":"c","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	for _, tt := range []struct {
		name   string
		routes []string
		text   string
		fails  bool // with kind
		kind   tokenpace.ErrorKind
	}{
		{"one route", []string{"slow"}, "", true, tokenpace.KindTooLarge},
		{"fallback", []string{"slow", "fast"}, "x", false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				oc := openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("x"),
					option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: modelTransport(func(model string) string {
						if model == "slow" {
							return empty + answer
						}
						return answer
					})}))
				var routes []tokenpace.Route
				for _, m := range tt.routes {
					routes = append(routes, route(m))
				}
				r, err := tokenpace.NewRouter(tokenpace.NewClient(oc), tokenpace.Policy{}, routes...)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
				defer cancel()
				start := time.Now()
				s := r.NewStreaming(ctx, chat("m", 10))
				text := ""
				for s.Next() {
					for _, c := range s.Current().Choices {
						text += c.Delta.Content
					}
				}
				if d := time.Since(start); d != 0 {
					t.Errorf("stream ended after %v, want 0", d)
				}
				if text != tt.text {
					t.Errorf("text = %q, want %q", text, tt.text)
				}
				if !tt.fails {
					if err := s.Err(); err != nil {
						t.Errorf("Err() = %v, want nil", err)
					}
				} else {
					checkKind(t, s.Err(), tt.kind)
				}
				_ = s.Close()
			})
		})
	}
}

// modelTransport answers each request with the event stream body gives
// for the model it names.
type modelTransport func(model string) string

func (f modelTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	var req struct{ Model string }
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &req)
	res := eventStream(f(req.Model))
	res.Request = r
	return res, nil
}

// TestResponseEventsBeforeFirstToken: 500 output items of a hosted tool
// (10 KiB each) before a Responses stream's text, as TestEventsBeforeFirstToken:
// the Router call hung; the try now fails, KindTooLarge.
func TestResponseEventsBeforeFirstToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b strings.Builder
		pad := strings.Repeat("y", 10<<10)
		for i := range 500 {
			fmt.Fprintf(&b, `data: {"type":"response.output_item.done","sequence_number":%d,"output_index":%d,"item":{"type":"web_search_call","id":"ws%d","status":"completed","action":{"type":"search","query":"%s"}}}`+"\n\n", i, i, i, pad)
		}
		b.WriteString(`data: {"type":"response.output_text.delta","item_id":"m","output_index":500,"content_index":0,"delta":"x","sequence_number":500}` + "\n\n")
		b.WriteString(`data: {"type":"response.completed","sequence_number":501,"response":{"id":"r","object":"response","status":"completed"}}` + "\n\n")
		oc := openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("x"),
			option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: modelTransport(func(string) string { return b.String() })}))
		r, err := tokenpace.NewRouter(tokenpace.NewClient(oc), tokenpace.Policy{}, route("m"))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		start := time.Now()
		s := r.NewResponseStreaming(ctx, respond("m", 10))
		for s.Next() {
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("stream ended after %v, want 0", d)
		}
		checkKind(t, s.Err(), tokenpace.KindTooLarge)
		_ = s.Close()
	})
}
