package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"

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
				var fx conformance
				fx.Reads = readFixture(t, "testdata/conformance/mlx-omni-server-stop-on-every-chunk-length.jsonl", &fx)
				fx.Reads = fx.Reads[:tc.reads]
				if tc.done {
					fx.Reads = append(fx.Reads, recordedRead{TMS: fx.Reads[len(fx.Reads)-1].TMS + 1, Data: "data: [DONE]\n\n"})
				}
				url, hc := serve(t, byModel(map[string]http.Handler{fx.Request.Body.Model: replay(fx.recording)}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				s := c.NewStreaming(context.Background(), chat(fx.Request.Body.Model, 8))
				text := readAll(t, s)
				var se *tokenpace.StreamError
				if text != tc.text {
					t.Errorf("text %q, want %q", text, tc.text)
				}
				if got := errors.As(s.Err(), &se) && se.Kind == tokenpace.KindTruncated; got != tc.err {
					t.Errorf("Err() = %v; KindTruncated %v, want %v", s.Err(), got, tc.err)
				}
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
				var fx conformance
				fx.Reads = readFixture(t, "testdata/conformance/agent-framework-hosted-stop-every-chunk-no-done.jsonl", &fx)
				if tc.reads > 0 {
					fx.Reads = fx.Reads[:tc.reads]
				}
				url, hc := serve(t, byModel(map[string]http.Handler{fx.Request.Body.Model: replay(fx.recording)}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				s := c.NewStreaming(context.Background(), chat(fx.Request.Body.Model, 64))
				text := readAll(t, s)
				var se *tokenpace.StreamError
				if text != tc.text {
					t.Errorf("text %q, want %q", text, tc.text)
				}
				if got := errors.As(s.Err(), &se) && se.Kind == tokenpace.KindTruncated; got != tc.err {
					t.Errorf("Err() = %v; KindTruncated %v, want %v", s.Err(), got, tc.err)
				}
				if !tc.err {
					if u := s.Accumulated().Usage; u.PromptTokens != 14 || u.CompletionTokens != 9 {
						t.Errorf("usage %d and %d, want 14 and 9", u.PromptTokens, u.CompletionTokens)
					}
				}
			})
		})
	}
}
