package tokenpace_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/tokenpace/tokenpace"
)

// TestFinishOnEveryChunkCut: mlx-omni-server sends finish_reason "stop"
// with every chunk from the first token on
// (testdata/conformance/mlx-omni-server-stop-on-every-chunk-length.jsonl).
// The first one was taken for the answer's end, so a stream cut after its
// third token read as a whole answer, nil error and finish "stop", and a
// Router did not continue it. A choice that sends output after its finish
// reason did not end there: the cut stream is KindTruncated, and the same
// stream ended by [DONE] after its last token (no usage asked) is whole.
func TestFinishOnEveryChunkCut(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reads  int
		done   bool
		text   string
		err    bool
		finish string
	}{
		{"cut after three tokens", 3, false, "Latency budgets keep", true, ""},
		{"[DONE] after the last token", 8, true, "Latency budgets keep a slow answer from hanging", false, "length"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := replayCut(t, "mlx-omni-server-stop-on-every-chunk-length", tc.reads, tc.done, 8, tc.text, tc.err)
				if !tc.err && s.Timing().FinishReason != tc.finish {
					t.Errorf("Timing().FinishReason = %q, want %q", s.Timing().FinishReason, tc.finish)
				}
			})
		})
	}
}

// TestFinishOnEveryChunkUsageEnds: Microsoft Agent Framework's hosted
// Chat Completions endpoint sends finish_reason "stop" with every chunk,
// its model's finish and its usage as chunks of no choices, and no [DONE]
// (testdata/conformance/agent-framework-hosted-stop-every-chunk-no-done.jsonl).
// Its whole answers read as cut ("no [DONE] event"), and a Router sent
// them on to be continued. The usage chunk ends the answer; the same
// stream cut before it is still a cut one.
func TestFinishOnEveryChunkUsageEnds(t *testing.T) {
	const whole = "Latency budgets keep a slow answer from hanging."
	for _, tc := range []struct {
		name  string
		reads int // 0: all
		text  string
		err   bool
	}{
		{"whole, its usage last", 0, whole, false},
		{"cut before its usage", 10, whole, true},
		{"cut after four tokens", 4, "Latency budgets keep a", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := replayCut(t, "agent-framework-hosted-stop-every-chunk-no-done", tc.reads, false, 64, tc.text, tc.err)
				if !tc.err {
					if u := s.Accumulated().Usage; u.PromptTokens != 14 || u.CompletionTokens != 9 {
						t.Errorf("usage %d and %d, want 14 and 9", u.PromptTokens, u.CompletionTokens)
					}
				}
			})
		})
	}
}

// replayCut replays fixture name to a Client's chat call of maxTokens,
// its first reads reads only (all for 0), then a [DONE] if done, and
// checks that the caller reads text and that the stream ends cut
// (KindTruncated) if and only if cut; it returns the stream.
func replayCut(t *testing.T, name string, reads int, done bool, maxTokens int, text string, cut bool) *tokenpace.Stream[openai.ChatCompletionChunk] {
	t.Helper()
	fx := fixture(t, name)
	if reads > 0 {
		fx.Reads = fx.Reads[:reads]
	}
	if done {
		fx.Reads = append(fx.Reads, recordedRead{TMS: fx.Reads[len(fx.Reads)-1].TMS + 1, Data: "data: [DONE]\n\n"})
	}
	url, hc := serve(t, byModel(map[string]http.Handler{fx.Request.Body.Model: replay(fx.recording)}))
	s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat(fx.Request.Body.Model, maxTokens))
	if got := readAll(t, s); got != text {
		t.Errorf("text %q, want %q", got, text)
	}
	var se *tokenpace.StreamError
	if got := errors.As(s.Err(), &se) && se.Kind == tokenpace.KindTruncated; got != cut {
		t.Errorf("Err() = %v; KindTruncated %v, want %v", s.Err(), got, cut)
	}
	return s
}

// TestFinishOnEveryChunkUsageMidAnswer: Microsoft Agent Framework's
// hosted endpoint writes each model call's usage as it comes, so an agent
// that makes more than one (a sequential workflow served as an agent:
// microsoft/agent-framework dotnet/src/Microsoft.Agents.AI.Workflows
// AgentWorkflowBuilder.BuildSequential, WorkflowHostingExtensions.AsAIAgent)
// sends the first agent's usage chunk mid-answer, then waits for the next
// agent's first token. That usage chunk was taken for the answer's end:
// a Gap budget that ran out in the wait breached nothing, and the caller
// got the first agent's words alone as a whole answer, nil error. The
// answer now ends at a usage chunk only when the body ends right after
// it: the wait is a breach, and with FailFast the caller gets it.
func TestFinishOnEveryChunkUsageMidAnswer(t *testing.T) {
	ch := func(content string) string {
		return `data: {"id":"chatcmpl-w1","choices":[{"index":0,"finish_reason":"stop","delta":{"content":"` + content + `","role":"assistant"}}],"object":"chat.completion.chunk","created":1,"model":"m"}` + "\n\n"
	}
	none := `data: {"id":"chatcmpl-w1","choices":[],"object":"chat.completion.chunk","created":1,"model":"m"}` + "\n\n"
	usage := func(in, out int) string {
		return fmt.Sprintf(`data: {"id":"chatcmpl-w1","choices":[],"object":"chat.completion.chunk","created":1,"model":"m","usage":{"completion_tokens":%d,"prompt_tokens":%d,"total_tokens":%d}}`+"\n\n", out, in, in+out)
	}
	rec := recording{Status: 200, HeadersMS: 5, Headers: map[string]string{"Content-Type": "text/event-stream"}, Reads: []recordedRead{
		{TMS: 20, Data: ch("Draft:")}, {TMS: 30, Data: ch(" budgets")}, {TMS: 40, Data: none}, {TMS: 42, Data: usage(14, 2)},
		{TMS: 2500, Data: ch(" Edited:")}, {TMS: 2510, Data: ch(" budgets.")}, {TMS: 2520, Data: none}, {TMS: 2522, Data: usage(30, 2)},
	}}
	for _, tc := range []struct {
		name   string
		budget tokenpace.Budget
		text   string
		breach bool
	}{
		{"whole, no budget", tokenpace.Budget{}, "Draft: budgets Edited: budgets.", false},
		{"the next agent's first token late", tokenpace.Budget{Gap: time.Second}, "Draft: budgets", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, replay(rec))
				r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tokenpace.Policy{Budget: tc.budget, FailFast: true}, route("m"))
				if err != nil {
					t.Fatal(err)
				}
				s := r.NewStreaming(context.Background(), chat("m", 64))
				text := readAll(t, s)
				if text != tc.text {
					t.Errorf("text %q, want %q", text, tc.text)
				}
				var be *tokenpace.BudgetError
				if got := errors.As(s.Err(), &be) && be.Phase == tokenpace.PhaseGap; got != tc.breach {
					t.Errorf("Err() = %v; a Gap breach %v, want %v", s.Err(), got, tc.breach)
				}
				if !tc.breach && s.Err() != nil {
					t.Errorf("Err() = %v, want nil", s.Err())
				}
			})
		})
	}
}
