package tokenpace_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace"
)

// audioStream is a handler that speaks words as audio, as OpenAI's audio
// models stream a chat answer: a role chunk at once, then 100 ms later
// each word's transcript piece (the first with the audio's id) and a
// piece of its audio data, a word every 20 ms, and last the expiry alone
// and [DONE], without a finish reason. When cut > 0, the stream ends
// after cut words, without [DONE]; when cut < 0, after the expiry,
// without [DONE], as a relay that drops it sends the answer.
func audioStream(id string, words []string, cut int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		send := func(delta string) {
			fmt.Fprintf(w, `data: {"id":"chatcmpl-a","object":"chat.completion.chunk","model":"gpt-audio","choices":[{"index":0,"delta":%s,"finish_reason":null}]}`+"\n\n", delta)
			_ = rc.Flush()
		}
		send(`{"role":"assistant","content":null}`)
		time.Sleep(100 * time.Millisecond)
		for i, word := range words {
			if cut > 0 && i == cut {
				return
			}
			if i > 0 {
				time.Sleep(20 * time.Millisecond)
				send(fmt.Sprintf(`{"audio":{"transcript":%q}}`, " "+word))
			} else {
				send(fmt.Sprintf(`{"audio":{"id":%q,"transcript":%q}}`, id, word))
			}
			send(fmt.Sprintf(`{"audio":{"data":%q}}`, audioData(word)))
		}
		send(`{"audio":{"expires_at":1760003600}}`)
		if cut == 0 {
			_, _ = w.Write([]byte("data: [DONE]\n\n"))
		}
	}
}

// audioData is the base64 audio of word in audioStream: three bytes per
// letter, so that the pieces join into valid base64.
func audioData(word string) string {
	return base64.StdEncoding.EncodeToString([]byte(strings.Repeat(word, 3)))
}

// An answer spoken as audio is output: its first transcript piece is the
// first token, its pieces count as chunks, a TTFT and a stall budget hold
// on it, and the caller gets the whole audio in Accumulated, whose message
// refers to it in the next turn. Without that, the Router took the answer
// for an empty one, or for one that never started, and answered from its
// next route instead.
func TestAudioAnswer(t *testing.T) {
	t.Run("with [DONE]", func(t *testing.T) { audioAnswer(t, 0) })
	// The expiry alone ends the answer, as OpenAI sends it: a stream that
	// ends there is complete.
	t.Run("without [DONE]", func(t *testing.T) { audioAnswer(t, -1) })
}

// audioAnswer is TestAudioAnswer on an audioStream cut at cut.
func audioAnswer(t *testing.T, cut int) {
	synctest.Test(t, func(t *testing.T) {
		words := []string{"Hello", "there", "friend"}
		url, hc := serve(t, byModel(map[string]http.Handler{"voice": audioStream("audio_1", words, cut), "second": secondRoute}))
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)),
			tokenpace.Policy{Budget: tokenpace.Budget{TTFT: 150 * time.Millisecond, Gap: 50 * time.Millisecond}},
			route("voice"), route("second"))
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewStreaming(context.Background(), chat("voice", 64))
		var content strings.Builder
		for s.Next() {
			for _, ch := range s.Current().Choices {
				content.WriteString(ch.Delta.Content)
			}
		}
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		tm := s.Timing()
		if got := outcomes(tm); !slices.Equal(got, []tokenpace.Outcome{tokenpace.OutcomeWon}) {
			t.Errorf("attempts %v, want the audio route alone, won", got)
		}
		if content.Len() != 0 {
			t.Errorf("content %q, want none: the answer is audio", content.String())
		}
		if tm.TTFT() != 100*time.Millisecond || tm.OutputChunks != 2*len(words) || tm.MaxGap() != 20*time.Millisecond {
			t.Errorf("TTFT %v, %d output chunks, longest gap %v; want 100ms, %d and 20ms", tm.TTFT(), tm.OutputChunks, tm.MaxGap(), 2*len(words))
		}
		m := s.Accumulated().Choices[0].Message
		var data strings.Builder
		for _, w := range words {
			data.WriteString(audioData(w))
		}
		if a := m.Audio; a.ID != "audio_1" || a.Transcript != "Hello there friend" || a.Data != data.String() || a.ExpiresAt != 1760003600 {
			t.Errorf("accumulated audio (%q, %q, %q, %d), want (audio_1, %q, %q, 1760003600)", a.ID, a.Transcript, a.Data, a.ExpiresAt, "Hello there friend", data.String())
		}
		if _, err := base64.StdEncoding.DecodeString(m.Audio.Data); err != nil {
			t.Errorf("accumulated audio data does not decode: %v", err)
		}
		if p := m.ToAssistantMessageParam(); p.Audio.ID != "audio_1" {
			t.Errorf("the next turn's assistant message refers to audio %q, want audio_1", p.Audio.ID)
		}
	})
}

// A Router never continues an answer spoken as audio that broke: a route
// asked to go on from the transcript would speak its answer again from
// the start. It restarts it on the next route, tells the caller
// (Restarted), and the caller's accumulated audio is the restarted
// answer's alone.
func TestAudioRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		words := []string{"One", "two", "three"}
		url, hc := serve(t, byModel(map[string]http.Handler{"first": audioStream("audio_1", words, 2), "second": audioStream("audio_2", words, 0)}))
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tokenpace.Policy{Continue: true}, route("first"), route("second"))
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewStreaming(context.Background(), chat("first", 64))
		var restarts []int
		for i := 0; s.Next(); i++ {
			if s.Restarted() {
				restarts = append(restarts, i)
			}
		}
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		tm := s.Timing()
		if got := kinds(tm); !slices.Equal(got, []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptRestart}) {
			t.Errorf("attempts %v, want first, restart", got)
		}
		// The first route sent its role chunk and two words' four pieces.
		if !slices.Equal(restarts, []int{5}) {
			t.Errorf("Restarted at chunks %v, want [5], the restarted answer's first", restarts)
		}
		a := s.Accumulated().Choices[0].Message.Audio
		if a.ID != "audio_2" || a.Transcript != "One two three" {
			t.Errorf("accumulated audio %q, %q; want audio_2, %q", a.ID, a.Transcript, "One two three")
		}
	})
}
