package tokenpace_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
)

// responseEvent frames one Responses event as OpenAI does.
func responseEvent(typ, fields string) string {
	return fmt.Sprintf("event: %s\ndata: {\"type\":%q,\"sequence_number\":0%s}\n\n", typ, typ, fields)
}

// The first output-bearing Responses event, whatever its kind, is the
// first token: a reasoning, reasoning summary, refusal or function-call
// arguments delta counts as an output text delta does; the events around
// them do not.
func TestResponseFirstOutput(t *testing.T) {
	const completed = `,"response":{"id":"r","object":"response","created_at":1,"model":"m","output":[],"status":"completed","usage":{"input_tokens":5,"input_tokens_details":{"cached_tokens":0},"output_tokens":2,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":7}}`
	tests := []struct {
		typ, fields string // the event at 50 ms
		ttft        time.Duration
	}{
		{"response.reasoning_text.delta", `,"item_id":"rs","output_index":0,"content_index":0,"delta":"think"`, 50 * msec},
		{"response.reasoning_summary_text.delta", `,"item_id":"rs","output_index":0,"summary_index":0,"delta":"sum"`, 50 * msec},
		{"response.refusal.delta", `,"item_id":"m","output_index":0,"content_index":0,"delta":"no"`, 50 * msec},
		{"response.function_call_arguments.delta", `,"item_id":"fc","output_index":0,"delta":"{\"a\""`, 50 * msec},
		{"response.output_item.added", `,"output_index":0,"item":{"id":"m","type":"message","role":"assistant","status":"in_progress","content":[]}`, 80 * msec},
		{"response.output_text.delta", `,"item_id":"m","output_index":0,"content_index":0,"delta":""`, 80 * msec},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := recording{Status: 200, HeadersMS: 5, Headers: map[string]string{"Content-Type": "text/event-stream"}, Reads: []recordedRead{
					{TMS: 10, Data: responseEvent("response.created", `,"response":{"id":"r","object":"response","created_at":1,"model":"m","output":[],"status":"in_progress"}`)},
					{TMS: 50, Data: responseEvent(tt.typ, tt.fields)},
					{TMS: 80, Data: responseEvent("response.output_text.delta", `,"item_id":"m","output_index":0,"content_index":0,"delta":"Hi"`)},
					{TMS: 90, Data: responseEvent("response.completed", completed)},
				}}
				url, hc := serve(t, replay(rec))
				c := tokenpace.NewClient(openaiClient(url, hc))
				s := c.NewResponseStreaming(context.Background(), respond("m", 10))
				_, text, _ := readResponse(s, time.Now())
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				tm := s.Timing()
				if tm.TTFT() != tt.ttft || text != "Hi" || tm.E2E() != 90*msec || tm.OutputTokens != 2 || tm.PromptTokens != 5 {
					t.Errorf("TTFT %v, text %q, E2E %v, tokens %d/%d; want %v, Hi, 90ms, 5/2",
						tm.TTFT(), text, tm.E2E(), tm.PromptTokens, tm.OutputTokens, tt.ttft)
				}
			})
		})
	}
}

// TestReplayServersResponses replays /v1/responses streams recorded from
// live servers. llama.cpp (a build of August 2026): headers at once,
// before the prefill; events with neither sequence numbers nor output
// indexes; the first delta in the read that brings the first four events.
// Ollama 0.17.4: the headers with response.created and the events before
// the first delta, after the prefill; 12 tokens in 10 deltas, the usage
// only in response.completed, read with the last item's done event. Every
// delta is a token stamped with the arrival of its read, and the usage is
// the server's.
func TestReplayServersResponses(t *testing.T) {
	for _, tt := range []struct {
		file                   string
		deltas, prompt, output int
	}{
		{"llamacpp-2026-responses-stream.jsonl", 16, 31, 16},
		{"ollama-2026-responses-stream.jsonl", 10, 27, 12},
	} {
		t.Run(tt.file, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := loadRecording(t, tt.file)
				url, hc := serve(t, replay(rec))
				c := tokenpace.NewClient(openaiClient(url, hc))
				s := c.NewResponseStreaming(context.Background(), respond("m", 16))
				_, text, _ := readResponse(s, time.Now())
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				var want string
				var at []time.Duration
				eachRecordedEvent(t, rec, func(ev struct{ Type, Delta string }, rd recordedRead) {
					if ev.Type == "response.output_text.delta" {
						want += ev.Delta
						at = append(at, ms(rd.TMS))
					}
				})
				tm := s.Timing()
				if text != want || len(tm.Chunks) != len(at) || len(at) != tt.deltas {
					t.Fatalf("text %q in %d chunks, want %q in %d (%d)", text, len(tm.Chunks), want, len(at), tt.deltas)
				}
				for i, a := range tm.Chunks {
					if got := a.Sub(tm.Sent); got != at[i] {
						t.Errorf("Chunks[%d] at %v, want %v", i, got, at[i])
					}
				}
				if tm.TTFB() != ms(rec.HeadersMS) || tm.TTFT() != at[0] {
					t.Errorf("TTFB, TTFT = %v, %v, want %v, %v", tm.TTFB(), tm.TTFT(), ms(rec.HeadersMS), at[0])
				}
				if !tm.UsageReported || tm.PromptTokens != tt.prompt || tm.OutputTokens != tt.output {
					t.Errorf("usage = %v, %d prompt, %d output; want true, %d, %d", tm.UsageReported, tm.PromptTokens, tm.OutputTokens, tt.prompt, tt.output)
				}
				if tm.FinishReason != "stop" && tm.FinishReason != "max_output_tokens" {
					t.Errorf("FinishReason = %q", tm.FinishReason)
				}
			})
		})
	}
}
