package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestReplayRecordedServers replays real servers' responses with their
// recorded read timing and checks that every timestamp is the arrival time
// of the read that completed the chunk, to the nanosecond.
func TestReplayRecordedServers(t *testing.T) {
	tests := []struct {
		file                     string
		prompt, cached, output   int
		finish                   string
		firstContentRead, chunks int
	}{
		// A role-only chunk arrives first with the headers; usage comes in
		// a chunk of its own with no choices.
		{file: "llmdsim-chat-stream.jsonl", prompt: 10, output: 20, finish: "length", firstContentRead: 1, chunks: 20},
		// No role-only chunk; usage rides on the finish chunk.
		{file: "llamacpp-110m-chat-stream.jsonl", prompt: 282, output: 40, finish: "length", firstContentRead: 0, chunks: 40},
		// Ollama (August 2026): the headers only with the first chunk,
		// after the prefill; the role with the first content; finish,
		// usage and [DONE] in one read.
		{file: "ollama-2026-chat-stream.jsonl", prompt: 77, output: 32, finish: "length", firstContentRead: 0, chunks: 32},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := loadRecording(t, tt.file)
				url, hc := serve(t, replay(rec))
				c := tokenpace.NewClient(openaiClient(url, hc))
				s := c.NewStreaming(context.Background(), chat("m", 40))
				var text strings.Builder
				for s.Next() {
					for _, ch := range s.Current().Choices {
						text.WriteString(ch.Delta.Content)
					}
					time.Sleep(30 * time.Millisecond) // a slow caller changes nothing
				}
				if err := s.Err(); err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				tm := s.Timing()
				if got, want := tm.Headers.Sub(tm.Sent), ms(rec.HeadersMS); got != want {
					t.Errorf("TTFB() = %v, want %v", got, want)
				}
				if got, want := tm.FirstChunk.Sub(tm.Sent), ms(rec.Reads[0].TMS); got != want {
					t.Errorf("first chunk at %v, want %v", got, want)
				}
				if got, want := tm.TTFT(), ms(rec.Reads[tt.firstContentRead].TMS); got != want {
					t.Errorf("TTFT() = %v, want %v", got, want)
				}
				if len(tm.Chunks) != tt.chunks {
					t.Fatalf("len(Chunks) = %d, want %d", len(tm.Chunks), tt.chunks)
				}
				for i, at := range tm.Chunks {
					if got, want := at.Sub(tm.Sent), ms(rec.Reads[tt.firstContentRead+i].TMS); got != want {
						t.Errorf("Chunks[%d] at %v, want %v", i, got, want)
					}
				}
				if got, want := tm.E2E(), ms(rec.Reads[len(rec.Reads)-1].TMS); got != want {
					t.Errorf("E2E() = %v, want %v", got, want)
				}
				if !tm.UsageReported || tm.PromptTokens != tt.prompt || tm.CachedTokens != tt.cached || tm.OutputTokens != tt.output {
					t.Errorf("usage = (%v, %d, %d, %d), want (true, %d, %d, %d)", tm.UsageReported,
						tm.PromptTokens, tm.CachedTokens, tm.OutputTokens, tt.prompt, tt.cached, tt.output)
				}
				if tm.FinishReason != tt.finish {
					t.Errorf("FinishReason = %q, want %q", tm.FinishReason, tt.finish)
				}
				want := recordedText(t, rec)
				if got := text.String(); got != want {
					t.Errorf("content read = %q, want %q", got, want)
				}
				if got := s.Accumulated().Choices[0].Message.Content; got != want {
					t.Errorf("Accumulated content = %q, want %q", got, want)
				}
				if tm.ResponseModel == "" {
					t.Errorf("ResponseModel is empty")
				}
			})
		})
	}
}

// TestReplayRateLimited checks that an error status reaches the caller as
// a KindRequest StreamError that unwraps to openai-go's *openai.Error.
func TestReplayRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := loadRecording(t, "llmdsim-chat-stream-429.jsonl")
		url, hc := serve(t, replay(rec))
		var r record
		c := tokenpace.NewClient(openaiClient(url, hc), tokenpace.WithHooks(r.hooks()))
		s := c.NewStreaming(context.Background(), chat("m", 10))
		if s.Next() {
			t.Fatal("Next() = true, want false")
		}
		checkKind(t, s.Err(), tokenpace.KindRequest)
		var apiErr *openai.Error
		if !errorsAs(s.Err(), &apiErr) || apiErr.StatusCode != 429 {
			t.Errorf("errors.As(Err(), *openai.Error) = %v, want status 429", apiErr)
		}
		if len(r.done) != 1 || r.done[0].Err != s.Err() {
			t.Errorf("Done calls = %d, want 1 with Err() as Timing.Err", len(r.done))
		}
		if got := r.done[0].HTTP[0].Status; got != 429 {
			t.Errorf("HTTP[0].Status = %d, want 429", got)
		}
	})
}

// TestReplayNonStreaming checks New against a recorded non-streaming
// response: E2E ends at the last byte, usage comes from the response.
func TestReplayNonStreaming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := loadRecording(t, "llamacpp-110m-chat-nostream.jsonl")
		url, hc := serve(t, replay(rec))
		c := tokenpace.NewClient(openaiClient(url, hc))
		var tm *tokenpace.Timing
		res, err := c.New(context.Background(), chat("m", 10), tokenpace.WithTimingInto(&tm))
		if err != nil {
			t.Fatalf("New() error = %v", err)
		}
		if res.Choices[0].Message.Content == "" {
			t.Errorf("response has no content")
		}
		if got, want := tm.E2E(), ms(rec.Reads[len(rec.Reads)-1].TMS); got != want {
			t.Errorf("E2E() = %v, want %v", got, want)
		}
		if got, want := tm.TTFB(), ms(rec.HeadersMS); got != want {
			t.Errorf("TTFB() = %v, want %v", got, want)
		}
		if tm.Stream || !tm.UsageReported || tm.OutputTokens != 10 || tm.PromptTokens != 14 || tm.FinishReason != "length" {
			t.Errorf("Timing = %+v, want non-streaming with usage 14/10 and finish length", tm)
		}
	})
}

// recordedText decodes the content of a recorded stream on its own.
func recordedText(t *testing.T, rec recording) string {
	t.Helper()
	var b strings.Builder
	eachRecordedEvent(t, rec, func(c struct {
		Choices []struct {
			Delta struct{ Content string } `json:"delta"`
		} `json:"choices"`
	}, _ recordedRead) {
		for _, ch := range c.Choices {
			b.WriteString(ch.Delta.Content)
		}
	})
	return b.String()
}

// TestReplayLlamaCppParseError replays a stream that llama.cpp's server
// (a build of August 2026) ends with an error event after the whole
// answer: its chat parser could not read the model's output in the
// template's format ("does not match the expected peg-native format",
// ggml-org/llama.cpp#26381, #27733), and no finish reason nor [DONE]
// follows. The caller keeps every delta it received, stamped as it
// arrived, and gets the server's error as a KindErrorEvent.
func TestReplayLlamaCppParseError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := loadRecording(t, "llamacpp-2026-chat-stream-parse-error.jsonl")
		url, hc := serve(t, replay(rec))
		c := tokenpace.NewClient(openaiClient(url, hc))
		s := c.NewStreaming(context.Background(), chat("m", 48))
		n := 0 // events that carry content
		for s.Next() {
			if ch := s.Current().Choices; len(ch) > 0 && ch[0].Delta.Content != "" {
				n++
			}
		}
		var se *tokenpace.StreamError
		var ae *openai.Error
		if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindErrorEvent || !errors.As(s.Err(), &ae) || !strings.Contains(ae.Message, "peg-native") {
			t.Fatalf("Err() = %v, want a KindErrorEvent with the server's message", s.Err())
		}
		want := recordedText(t, rec)
		tm := s.Timing()
		if s.Text() != want || want == "" || len(tm.Chunks) != n {
			t.Errorf("Text() = %q after %d content events (%d chunks), want the %q received", s.Text(), n, len(tm.Chunks), want)
		}
		if tm.TTFT() != ms(rec.Reads[0].TMS) || tm.E2E() != ms(rec.Reads[len(rec.Reads)-1].TMS) || tm.UsageReported || tm.OutputTokens != n {
			t.Errorf("TTFT %v, E2E %v, usage %v, output %d; want %v, %v, false, %d", tm.TTFT(), tm.E2E(), tm.UsageReported, tm.OutputTokens,
				ms(rec.Reads[0].TMS), ms(rec.Reads[len(rec.Reads)-1].TMS), n)
		}
	})
}

// TestRouterDoesNotContinuePastMaxTokens replays the stream that
// llama.cpp's server ends with an error event after its whole answer (9
// content chunks) through a Router with Continue: asked for 9 tokens, the
// answer is as long as asked, so no continuation makes it longer; the
// call ends with the server's error and the text it sent. Asked for more,
// it is carried on by the next route.
func TestRouterDoesNotContinuePastMaxTokens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		broken := loadRecording(t, "llamacpp-2026-chat-stream-parse-error.jsonl")
		next := loadRecording(t, "llamacpp-110m-chat-stream.jsonl")
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/next/") {
				replay(next)(w, r)
				return
			}
			replay(broken)(w, r)
		}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true},
			tokenpace.Route{Name: "llama"}, tokenpace.Route{Name: "next", Options: []option.RequestOption{option.WithBaseURL("http://replay.invalid/next/v1/")}})
		if err != nil {
			t.Fatal(err)
		}
		sent := recordedText(t, broken)
		for _, tt := range []struct {
			maxTokens int
			attempts  int
			wantErr   bool
		}{{9, 1, true}, {100, 2, false}} {
			s := r.NewStreaming(context.Background(), chat("m", tt.maxTokens))
			for s.Next() {
			}
			var se *tokenpace.StreamError
			gotErr := errors.As(s.Err(), &se) && se.Kind == tokenpace.KindErrorEvent
			a := s.Timing().Attempts
			if gotErr != tt.wantErr || len(a) != tt.attempts || !strings.HasPrefix(s.Text(), sent) || (tt.wantErr && s.Text() != sent) {
				t.Errorf("max_tokens %d: err %v, %d attempts, text %q; want error %v, %d attempts, text from %q", tt.maxTokens, s.Err(), len(a), s.Text(), tt.wantErr, tt.attempts, sent)
			}
		}
	})
}
