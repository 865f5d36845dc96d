package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// FuzzInfill feeds /infill answers of any bytes, streamed and whole: the
// translation never panics, stays within a bound of what it read, gives
// [DONE] only as its last event, and every other event it makes is JSON.
func FuzzInfill(f *testing.F) {
	f.Add([]byte("data: {\"index\":0,\"content\":\" Cpp\",\"stop\":false,\"tokens_predicted\":1,\"tokens_evaluated\":13}\n\ndata: {\"content\":\"\",\"stop\":true,\"stop_type\":\"limit\",\"tokens_predicted\":1,\"tokens_evaluated\":13,\"timings\":{\"cache_n\":12}}\n\n"), true)
	f.Add([]byte(`{"content":"x","stop":true,"stop_type":"eos","tokens_predicted":1,"tokens_evaluated":2}`), false)
	f.Add([]byte("data: {\"error\":{\"code\":500}}\n\n"), true)
	f.Add([]byte("data: {\"content\":\"\\u0000\",\"stop\":false}\r\ndata: [DONE]\n"), true)
	f.Fuzz(func(t *testing.T, body []byte, stream bool) {
		ct := "application/json"
		if stream {
			ct = "text/event-stream"
		}
		res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {ct}}, Body: io.NopCloser(bytes.NewReader(body))}
		out, err := io.ReadAll(io.LimitReader(FromInfill(res, "m", 4<<10).Body, int64(8*len(body)+1<<16)))
		if err != nil {
			return // a line over the bound: the reader's error
		}
		if len(out) > 8*len(body)+1<<15 {
			t.Fatalf("%d bytes out of %d in", len(out), len(body))
		}
		if !stream {
			return
		}
		events := strings.Split(strings.TrimSuffix(string(out), "\n\n"), "\n\n")
		for i, ev := range events {
			data, ok := strings.CutPrefix(ev, "data: ")
			switch {
			case ev == "":
			case !ok:
				t.Fatalf("event %d %q is not a data line", i, ev)
			case data == "[DONE]" && i != len(events)-1:
				t.Fatalf("[DONE] is event %d of %d", i, len(events))
			case data != "[DONE]" && strings.Contains(data, `"text_completion"`) && !json.Valid([]byte(data)):
				t.Fatalf("event %d is no JSON: %q", i, data)
			}
		}
	})
}
