package tokenpace

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3/responses"
)

// BenchmarkRewriteEvent measures what passing on one event of a
// continuation costs beyond its decoding: an output_text delta of
// OpenAI's (logprobs and obfuscation fields) rewritten into the caller's
// message (sequence_number, output_index, item_id, content_index) and
// decoded again, next to the decoding of the event alone.
//
//	go test -run '^$' -bench BenchmarkRewriteEvent -benchmem -count 5 .
func BenchmarkRewriteEvent(b *testing.B) {
	data := []byte(`{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_045d5195f1ed9f940068ff5b17fd08819787a7a968fc33300f","output_index":0,"content_index":0,"delta":"Greetings","logprobs":[],"obfuscation":"mvkAadO"}`)
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var ev responses.ResponseStreamEventUnion
			if err := json.Unmarshal(data, &ev); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rewrite", func(b *testing.B) {
		var ev responses.ResponseStreamEventUnion
		if err := json.Unmarshal(data, &ev); err != nil {
			b.Fatal(err)
		}
		s := &respStitch{next: 9, items: 1, rewrite: true, merged: ev.ItemID,
			into: respPart{item: "msg_1", part: 0}, index: map[int64]int64{0: 0}}
		b.ReportAllocs()
		for b.Loop() {
			if out, keep := s.rewritten(&ev); !keep || out.ItemID != "msg_1" {
				b.Fatalf("rewritten() = %+v, %v, want the event on msg_1", out, keep)
			}
		}
	})
}
