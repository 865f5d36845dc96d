package tokenpace_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestDiffusionFramesContinued: a Router with Continue carries on an
// answer cut mid-way on a route whose model streams refinement steps
// (Mercury's with "diffusing" set), each holding the continuation's text
// alone, the model writing a new message after the assistant prefix. The
// steps replace one another, not the first route's text: the caller's
// Text and Accumulated, and the Validator, have the first route's text
// followed by the last step. The last step comes with the stream's end,
// so that the Validator runs while it waits for the caller, who took the
// steps before it: the run of steps goes on across the two.
func TestDiffusionFramesContinued(t *testing.T) {
	frame := func(text, finish string, progress string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return `data: {"id":"d","model":"mercury-2","choices":[{"index":0,"delta":{"role":"assistant","content":"` + text +
			`","tool_calls":[]},"finish_reason":` + f + `}],"diffusion_meta":{"diffusion_content":true,"diffusion_progress":` + progress + `}}` + "\n\n"
	}
	sse := map[string]string{"Content-Type": "text/event-stream"}
	cut := recording{Status: 200, Headers: sse, Reads: []recordedRead{
		{TMS: 100, Data: chunk("c", "The capital ", "", "")},
		{TMS: 110, Data: chunk("c", "of", "", "")}, // then the body breaks
	}}
	steps := recording{Status: 200, Headers: sse, Reads: []recordedRead{
		{TMS: 100, Data: frame(` Fr#nce i$ P&ris.`, "", "0")},
		{TMS: 110, Data: frame(` France i$ Paris.`, "", "0.5")},
		{TMS: 120, Data: frame(` France is Paris.`, "stop", "1") +
			`data: {"id":"d","model":"mercury-2","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"},
	}}
	const want = "The capital of France is Paris."
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, byModel(map[string]http.Handler{"first": replay(cut), "mercury-2": replay(steps)}))
		var validated []string
		p := tokenpace.Policy{Continue: true, Validator: func(text string) error {
			validated = append(validated, text)
			return nil
		}}
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), p, route("first"), route("mercury-2"))
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewStreaming(context.Background(), chat("first", 256))
		for s.Next() {
		}
		_ = s.Close()
		if s.Err() != nil || s.Text() != want || s.Accumulated().Choices[0].Message.Content != want {
			t.Errorf("Err() = %v, Text() = %q, Accumulated()'s content = %q; want nil, %q twice",
				s.Err(), s.Text(), s.Accumulated().Choices[0].Message.Content, want)
		}
		if !slices.Equal(validated, []string{want}) {
			t.Errorf("validated %q, want [%q]", validated, want)
		}
		if k := kinds(s.Timing()); !slices.Equal(k, []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptContinuation}) {
			t.Errorf("attempts %v, want first then continue", k)
		}
	})
}
