package tokenpace_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
)

// omniStream is a handler that answers as vLLM-Omni does a request for
// text and audio: the role chunk, the text a word a chunk, each chunk
// marked "modality":"text", then the text's finish and, once the whole
// text is spoken, the WAV as the content of one more chunk marked
// "modality":"audio", and [DONE]. When cut > 0, the body ends after cut
// words, before any audio.
func omniStream(words []string, wav string, cut int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if cut > 0 {
			omniWords(w, words[:cut], len(words))
			return
		}
		send := omniWords(w, words, len(words))
		time.Sleep(time.Second)
		send(fmt.Sprintf(`{"role":"assistant","content":%q}`, wav), `"stop"`, "audio")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}

// omniWords writes the start of a vLLM-Omni stream: the role chunk, then
// words a word a chunk, 20 ms apart, each marked "modality":"text"; the
// word at index total-1 (the answer's last, of total) finishes "stop". It
// returns what writes one more chunk.
func omniWords(w http.ResponseWriter, words []string, total int) (send func(delta, finish, modality string)) {
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	send = func(delta, finish, modality string) {
		fmt.Fprintf(w, `data: {"id":"chatcmpl-o","object":"chat.completion.chunk","model":"Qwen/Qwen2.5-Omni-7B","choices":[{"index":0,"delta":%s,"finish_reason":%s}],"modality":%q}`+"\n\n", delta, finish, modality)
		_ = rc.Flush()
	}
	send(`{"role":"assistant","content":""}`, "null", "text")
	for i, word := range words {
		time.Sleep(20 * time.Millisecond)
		finish := "null"
		if i == total-1 {
			finish = `"stop"`
		}
		if i > 0 {
			word = " " + word
		}
		send(fmt.Sprintf(`{"content":%q}`, word), finish, "text")
	}
	return send
}

// A request that asks for the answer spoken (modalities with "audio") is
// never continued when it breaks before any audio came: an omni server
// speaks the answer's whole text once it has it, so a continuation's
// audio would speak only the words after the text so far. The next route
// answers afresh (Restarted), and the caller's Accumulated holds its text
// and its audio alone.
func TestSpokenAnswerRestarted(t *testing.T) {
	for name, modalities := range map[string][]string{"text and audio": {"text", "audio"}, "none named": nil} {
		t.Run(name, func(t *testing.T) { spokenAnswerRestarted(t, modalities) })
	}
}

// spokenAnswerRestarted is TestSpokenAnswerRestarted for a request of
// the given modalities; none named is vLLM-Omni's default, text and audio.
func spokenAnswerRestarted(t *testing.T, modalities []string) {
	synctest.Test(t, func(t *testing.T) {
		words := []string{"Budgets", "keep", "answers", "fast."}
		url, hc := serve(t, byModel(map[string]http.Handler{
			"first": omniStream(words, "UklGRgAA", 2), "second": omniStream(words, "UklGRkQA", 0)}))
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tokenpace.Policy{Continue: true}, route("first"), route("second"))
		if err != nil {
			t.Fatal(err)
		}
		p := chat("first", 64)
		p.Modalities = modalities
		s := r.NewStreaming(context.Background(), p)
		restarted := false
		for s.Next() {
			restarted = restarted || s.Restarted()
		}
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		if got := kinds(s.Timing()); !slices.Equal(got, []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptRestart}) {
			t.Errorf("attempts %v, want first, restart", got)
		}
		if !restarted {
			t.Error("Restarted() never true, want it at the second route's first chunk")
		}
		m := s.Accumulated().Choices[0].Message
		if m.Content != "Budgets keep answers fast." || m.Audio.Data != "UklGRkQA" {
			t.Errorf("accumulated %q with audio %q, want %q with the second route's audio %q", m.Content, m.Audio.Data, "Budgets keep answers fast.", "UklGRkQA")
		}
	})
}

// A request for a text answer alone is continued as before.
func TestTextAnswerOfOmniServerContinued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, byModel(map[string]http.Handler{
			"first": omniStream([]string{"Budgets", "keep", "answers", "fast."}, "", 2), "second": secondRoute}))
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
		if got := kinds(s.Timing()); !slices.Equal(got, []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptContinuation}) {
			t.Errorf("attempts %v, want first, continuation", got)
		}
	})
}
