package tokenpace_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestApfelPromptRefusalsNotCounted: apfel, which serves Apple's on-device
// Foundation Models as /v1/chat/completions, writes its role chunk before
// the model is asked, so a prompt Apple's guardrails block, or one over
// the model's context window, comes as an error event inside the 200
// stream whose type names the request's fault ("content_policy_violation",
// "context_length_exceeded"), the refusals it answers 400 before a stream
// (Arthur-Ficial/apfel Sources/Handlers.swift, streamingResponse;
// Sources/Core/ApfelError.swift, openAIType and httpStatusCode). They
// counted as the server's failure: a breaker of one failure opened on a
// server that was well after one prompt it would not take. The caller now
// gets status 400 with the server's message, and the breaker stays closed.
func TestApfelPromptRefusalsNotCounted(t *testing.T) {
	for _, name := range []string{"apfel-guardrail-error-event-done", "apfel-context-overflow-error-event"} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { wantRefusalsNotCounted(t, name, http.StatusBadRequest, chatErr(t)) })
		})
	}
}

// TestApfelRateLimitReadsAsOne: apfel sends Foundation Models' rate limit
// (the system's limit on a process in the background) inside its 200
// stream as an error event of type "rate_limit_error", the error it
// answers 429 before a stream (Arthur-Ficial/apfel
// Sources/Core/ApfelError.swift). The caller got it as status 200; it now
// gets 429 with the server's message.
func TestApfelRateLimitReadsAsOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantStatus(t, "apfel-rate-limited-error-event", http.StatusTooManyRequests)
	})
}

// TestApfelRefusalKept: apfel answers Foundation Models' refusal of a
// prompt in OpenAI's wire format, a delta holding only `refusal`, then
// finish_reason "content_filter" (Arthur-Ficial/apfel Sources/SSE.swift,
// sseRefusalChunk). The caller must get the refusal in Accumulated() and
// the finish reason, and a Router must not take the answer as empty and
// send the prompt on.
func TestApfelRefusalKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fx conformance
		fx.Reads = readFixture(t, "testdata/conformance/apfel-refusal-delta-content-filter.jsonl", &fx)
		sent := 0
		rp := replay(fx.recording)
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sent++; rp(w, r) }))
		c := tokenpace.NewClient(openaiClient(url, hc))
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true},
			tokenpace.Route{Name: "a", Model: fx.Request.Body.Model}, tokenpace.Route{Name: "b", Model: fx.Request.Body.Model})
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewStreaming(context.Background(), chat(fx.Request.Body.Model, 64))
		readAll(t, s)
		acc := s.Accumulated()
		const want = "The on-device model refused the request: I can't help with that request."
		if s.Err() != nil || len(acc.Choices) != 1 || acc.Choices[0].Message.Refusal != want || acc.Choices[0].FinishReason != "content_filter" {
			t.Fatalf("Err() = %v, Accumulated() = %+v; want the refusal %q, finish content_filter", s.Err(), acc.Choices, want)
		}
		if sent != 1 {
			t.Errorf("requests sent = %d, want 1: a refusal is an answer", sent)
		}
	})
}
