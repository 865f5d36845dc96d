package tokenpace_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestDiffusingCutRestarts: a diffusion model's stream (Mercury's with
// "diffusing" set) cut after two of its refinement steps holds noise, not
// a prefix of the answer: the Client keeps the last step as its text, and
// a Router with Continue starts the answer anew on the next route, telling
// the caller (Restarted), instead of sending the noise on as an assistant
// message to continue from.
func TestDiffusingCutRestarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx := loadConformance(t)["inception-mercury-diffusing-frames-replace"]
		cut := fx.recording
		cut.Reads = cut.Reads[:2]
		url, hc := serve(t, byModel(map[string]http.Handler{"mercury-2": replay(cut), "second": secondRoute}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		p := chat("mercury-2", 256)

		got := readChat(c.NewStreaming(context.Background(), p))
		if want := "The capi%al of France i$ Paris."; got.err == nil || got.acc != want {
			t.Errorf("Client: err %v, accumulated %q; want an error and the last step %q", got.err, got.acc, want)
		}

		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true}, tokenpace.Route{Name: "first", Model: "mercury-2"}, route("second"))
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewStreaming(context.Background(), p)
		restarted := false
		for s.Next() {
			restarted = restarted || s.Restarted()
		}
		s.Close()
		if s.Err() != nil || s.Accumulated().Choices[0].Message.Content != extra || !restarted {
			t.Errorf("Router: err %v, accumulated %q, restarted %v; want the second route's answer %q alone, restarted",
				s.Err(), s.Accumulated().Choices[0].Message.Content, restarted, extra)
		}
		if k := kinds(s.Timing()); !slices.Equal(k, []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptRestart}) {
			t.Errorf("Router: attempts %v, want first then restart", k)
		}
	})
}
