package tokenpace_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// A Responses stream that ends without response.completed (OpenRouter
// closes some so, after their last output_item.done) is a whole answer
// when every output item it added was done, completed (or, for an item
// whose type has no status, such as a remote MCP tool's list and
// approval request, done), and one of them was more than reasoning or a
// tools' list; a stream cut inside an item, after its reasoning or its
// tools' list alone, or with an item done incomplete stays
// KindTruncated, and a Router carries it on. A whole one's finish reason
// is a completed response's, "stop".
func TestResponsesEndAfterItemsDone(t *testing.T) {
	reasoning := func(b *eventsSSE) {
		b.ev(10, "response.output_item.added", `,"output_index":0,"item":`+reasoningItem("rs_1", ""))
		b.ev(20, "response.reasoning_summary_text.delta", `,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Think."`)
		b.ev(30, "response.output_item.done", `,"output_index":0,"item":`+reasoningItem("rs_1", "Think."))
	}
	message := func(b *eventsSSE, status string) {
		b.ev(40, "response.output_item.added", `,"output_index":1,"item":`+messageItem("msg_1", "in_progress", ""))
		b.ev(50, "response.output_text.delta", `,"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Packets wait"`)
		if status != "" {
			b.ev(60, "response.output_item.done", `,"output_index":1,"item":`+messageItem("msg_1", status, "Packets wait"))
		}
	}
	const approval = `{"id":"mcpr_1","type":"mcp_approval_request","name":"ask_question","server_label":"deepwiki","arguments":"{}"}`
	tools := func(b *eventsSSE) {
		b.ev(10, "response.output_item.added", `,"output_index":0,"item":{"id":"mcpl_1","type":"mcp_list_tools","server_label":"deepwiki","tools":[]}`)
		b.ev(30, "response.output_item.done", `,"output_index":0,"item":{"id":"mcpl_1","type":"mcp_list_tools","server_label":"deepwiki","tools":[{"name":"ask_question","input_schema":{}}]}`)
	}
	approvalAdded := func(b *eventsSSE) {
		tools(b)
		b.ev(40, "response.output_item.added", `,"output_index":1,"item":`+approval)
	}
	tests := []struct {
		name     string
		write    func(b *eventsSSE)
		complete bool
		text     string // the text the caller reads, when complete
	}{
		{"every item done", func(b *eventsSSE) { reasoning(b); message(b, "completed") }, true, "Packets wait"},
		{"reasoning alone done", reasoning, false, ""},
		{"message not done", func(b *eventsSSE) { reasoning(b); message(b, "") }, false, ""},
		{"message done incomplete", func(b *eventsSSE) { reasoning(b); message(b, "incomplete") }, false, ""},
		{"MCP tools listed, approval request done", func(b *eventsSSE) {
			approvalAdded(b)
			b.ev(45, "response.output_item.done", `,"output_index":1,"item":`+approval)
		}, true, ""},
		{"MCP tools listed alone", tools, false, ""},
		{"MCP approval request not done", approvalAdded, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := &eventsSSE{}
				b.ev(5, "response.created", responseFields("gen-1", "in_progress", "[]", ""))
				tt.write(b)
				url, hc := serve(t, byModel(map[string]http.Handler{"first": replay(b.rec()), "second": secondRoute}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				got := readResponseStream(c.NewResponseStreaming(context.Background(), respond("first", 64)))
				if complete := got.err == nil; complete != tt.complete {
					t.Errorf("Client: Err() = %v, want complete %v", got.err, tt.complete)
				}
				if !tt.complete {
					checkKind(t, got.err, tokenpace.KindTruncated)
				}
				r, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true}, route("first"), route("second"))
				if err != nil {
					t.Fatal(err)
				}
				routed := readResponseStream(r.NewResponseStreaming(context.Background(), respond("first", 64)))
				want := 1
				if !tt.complete {
					want = 2
				}
				if n := len(routed.tm.Attempts); routed.err != nil || n != want {
					t.Errorf("Router: Err() = %v, %d attempts (%v), text %q; want nil, %d", routed.err, n, outcomes(routed.tm), routed.text, want)
				}
				if tt.complete && (got.text != tt.text || routed.text != tt.text) {
					t.Errorf("read %q (Client), %q (Router), want %q", got.text, routed.text, tt.text)
				}
				if tt.complete && (got.tm.FinishReason != "stop" || routed.tm.FinishReason != "stop") {
					t.Errorf("FinishReason %q (Client), %q (Router), want \"stop\": the answer ended by itself", got.tm.FinishReason, routed.tm.FinishReason)
				}
			})
		})
	}
}
