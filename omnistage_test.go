package tokenpace_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// omniFailing is a handler that answers as vLLM-Omni's stream generator
// does when a stage raises: the role chunk, then the text a word a chunk,
// each marked "modality":"text", the last word with finish "stop"; after
// failAt words (failAt == len(words): after the finish) vLLM's error
// event, type BadRequestError and code 400 for any exception, and
// [DONE].
func omniFailing(words []string, failAt int, message string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		omniWords(w, words[:failAt], len(words))
		fmt.Fprintf(w, `data: {"error": {"message": %q, "type": "BadRequestError", "param": null, "code": 400}}`+"\n\ndata: [DONE]\n\n", message)
	}
}

// A vLLM-Omni answer asked for as text alone (modalities ["text"]) has no
// audio stage: the server leaves out every output whose modality the
// request did not name. An error event after its text's finish fails
// nothing the caller asked for, and the answer is whole, as any
// server's; one in the middle of the text is continued as any other.
func TestOmniTextAloneErrorsAsAnyServers(t *testing.T) {
	words := []string{"Budgets", "keep", "answers", "fast."}
	t.Run("after the finish", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			url, hc := serve(t, byModel(map[string]http.Handler{"first": omniFailing(words, len(words), "stage failed")}))
			c := tokenpace.NewClient(openaiClient(url, hc))
			p := chat("first", 64)
			p.Modalities = []string{"text"}
			s := c.NewStreaming(context.Background(), p)
			for s.Next() {
			}
			s.Close()
			if err := s.Err(); err != nil {
				t.Errorf("Err() = %v, want nil: the text asked for is whole", err)
			}
			if got, want := s.Accumulated().Choices[0].Message.Content, "Budgets keep answers fast."; got != want {
				t.Errorf("accumulated %q, want %q", got, want)
			}
			if got := s.Timing().FinishReason; got != "stop" {
				t.Errorf("finish %q, want stop", got)
			}
		})
	})
	t.Run("in the text", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			url, hc := serve(t, byModel(map[string]http.Handler{
				"first": omniFailing(words, 2, "engine failed"), "second": secondRoute}))
			r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tokenpace.Policy{Continue: true}, route("first"), route("second"))
			if err != nil {
				t.Fatal(err)
			}
			p := chat("first", 64)
			p.Modalities = []string{"text"}
			s := r.NewStreaming(context.Background(), p)
			for s.Next() {
			}
			s.Close()
			if err := s.Err(); err != nil {
				t.Fatalf("Err() = %v, want nil", err)
			}
			if got := kinds(s.Timing()); !slices.Equal(got, []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptContinuation}) {
				t.Errorf("attempts %v, want first, continuation", got)
			}
			if got, want := s.Accumulated().Choices[0].Message.Content, "Budgets keep"+extra; got != want {
				t.Errorf("accumulated %q, want %q", got, want)
			}
		})
	})
}
