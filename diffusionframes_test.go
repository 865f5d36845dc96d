package tokenpace_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// TestDiffusionFramesValidated: a Router's Validator is given the text of
// a diffusion model's answer (Mercury's with "diffusing" set), the last of
// its refinement steps, not every step run together: each step holds the
// whole answer so far.
func TestDiffusionFramesValidated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := loadRecording(t, "conformance/inception-mercury-diffusing-frames-replace.jsonl")
		url, hc := serve(t, replay(rec))
		var validated []string
		p := tokenpace.Policy{Validator: func(text string) error {
			validated = append(validated, text)
			return nil
		}}
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), p, route("mercury-2"))
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewStreaming(context.Background(), chat("mercury-2", 256))
		for s.Next() {
		}
		_ = s.Close()
		const want = "The capital of France is Paris."
		if s.Err() != nil || len(validated) != 1 || validated[0] != want {
			t.Errorf("Err() = %v, validated %q; want nil, [%q]", s.Err(), validated, want)
		}
	})
}

// TestDiffusionFramesMilestones: the milestones of a diffusion model's
// answer are reached by its last refinement step, the answer, not by the
// noise of the steps before it, and a predicate is given the answer, not
// every step run together.
func TestDiffusionFramesMilestones(t *testing.T) {
	frame := func(text, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return `data: {"id":"c","model":"mercury-2","choices":[{"index":0,"delta":{"role":"assistant","content":"` + text +
			`","tool_calls":[]},"finish_reason":` + f + `}],"diffusion_meta":{"diffusion_content":true,"diffusion_progress":0.5}}` + "\n\n"
	}
	rec := recording{Status: 200, Headers: map[string]string{"Content-Type": "text/event-stream"}, Reads: []recordedRead{
		{TMS: 100, Data: frame(`H#. Ok%y.\n`, "")},
		{TMS: 200, Data: frame(`Hi. Okay.\n`, "")},
		{TMS: 300, Data: frame(`Hi. Okay.\n`, "stop")},
		{TMS: 301, Data: `data: {"id":"c","model":"mercury-2","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"},
	}}
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, replay(rec))
		var seen []string
		c := tokenpace.NewClient(openaiClient(url, hc), tokenpace.WithMilestone("okay", func(text string) bool {
			seen = append(seen, text)
			return strings.Contains(text, "Okay")
		}))
		s := c.NewStreaming(context.Background(), openai.ChatCompletionNewParams{Model: "mercury-2",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi")}})
		for s.Next() {
		}
		_ = s.Close()
		tm := s.Timing()
		for _, name := range []string{tokenpace.MilestoneFirstSentence, tokenpace.MilestoneFirstLine, "okay"} {
			if d, ok := tm.Milestone(name); !ok || d != 300*time.Millisecond {
				t.Errorf("Milestone(%s) = %v, %v; want 300ms, true (the last step)", name, d, ok)
			}
		}
		if len(seen) == 0 || seen[len(seen)-1] != "Hi. Okay.\n" {
			t.Errorf("the predicate was given %q, want the answer last", seen)
		}
		if s.Err() != nil || s.Text() != "Hi. Okay.\n" {
			t.Errorf("Err() = %v, Text() = %q", s.Err(), s.Text())
		}
	})
}

// TestDiffusionFramesMilestonePanic: a diffusion model's last refinement
// step without its finish reason, which a closing chunk brings, is given
// the milestones at the stream's end; a predicate that panics there ends
// the call with a KindPanic error, as anywhere else.
func TestDiffusionFramesMilestonePanic(t *testing.T) {
	rec := recording{Status: 200, Headers: map[string]string{"Content-Type": "text/event-stream"}, Reads: []recordedRead{
		{TMS: 100, Data: `data: {"id":"c","model":"mercury-2","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi.","tool_calls":[]},"finish_reason":null}],"diffusion_meta":{"diffusion_content":true,"diffusion_progress":1}}` + "\n\n"},
		{TMS: 101, Data: `data: {"id":"c","model":"mercury-2","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"},
	}}
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, replay(rec))
		c := tokenpace.NewClient(openaiClient(url, hc), tokenpace.WithMilestone("boom", func(string) bool { panic("boom") }))
		s := c.NewStreaming(context.Background(), openai.ChatCompletionNewParams{Model: "mercury-2",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi")}})
		for s.Next() {
		}
		_ = s.Close()
		var se *tokenpace.StreamError
		if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindPanic || se.Detail != "milestone predicate" {
			t.Errorf("Err() = %v, want a KindPanic *StreamError in the milestone predicate", s.Err())
		}
	})
}
