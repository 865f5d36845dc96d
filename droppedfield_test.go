package tokenpace_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// TestLlamaCppDroppedSuffix replays what llama.cpp's server (a build of
// August 2026) answers to a fill-in-the-middle request on
// /v1/completions: 200 and a completion of the prompt alone, its suffix
// dropped. The caller gets no text but a KindRequest error that names the
// field, as that server answered before it dropped it, at once and sent
// once; a server that keeps the suffix answers as usual, and a Router
// falls back to one.
func TestLlamaCppDroppedSuffix(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stream := loadRecording(t, "llamacpp-2026-completions-suffix-stream.jsonl")
		whole := loadRecording(t, "llamacpp-2026-completions-suffix-nostream.jsonl")
		keeps := stream // a server that does fill-in-the-middle: no llama.cpp header
		keeps.Headers = map[string]string{"content-type": stream.Headers["content-type"]}
		var sent int
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sent++
			body, _ := io.ReadAll(r.Body)
			switch {
			case strings.HasPrefix(r.URL.Path, "/keeps/"):
				replay(keeps)(w, r)
			case strings.Contains(string(body), `"stream":true`):
				replay(stream)(w, r)
			default:
				replay(whole)(w, r)
			}
		}))
		c := tokenpace.NewClient(openaiClient(url, hc), tokenpace.WithName("llama"))
		ctx := context.Background()
		refused := func(what string, err error, field string) {
			t.Helper()
			var se *tokenpace.StreamError
			var ae *openai.Error
			switch {
			case !errors.As(err, &se) || se.Kind != tokenpace.KindRequest || !strings.Contains(se.Detail, field):
				t.Errorf("%s: err = %v, want a KindRequest StreamError naming %s", what, err, field)
			case !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest || !strings.Contains(ae.Message, field):
				t.Errorf("%s: err = %v, want an *openai.Error 400 naming %s", what, err, field)
			}
		}

		s := c.NewCompletionStreaming(ctx, fim("m", "def f(x):\n", "\n    return x\n"))
		text, _ := readCompletion(s, s.Timing().Start)
		refused("fill-in-the-middle stream", s.Err(), "suffix")
		if tm := s.Timing(); text != "" || s.Text() != "" || len(tm.Chunks) != 0 || len(tm.HTTP) != 1 || sent != 1 {
			t.Errorf("fill-in-the-middle stream: text %q, %d chunks, %d HTTP tries, %d requests; want none, 0, 1, 1", text, len(tm.Chunks), len(tm.HTTP), sent)
		}
		if err := s.Err(); err == nil || !strings.Contains(err.Error(), "ignores suffix") {
			t.Errorf("error %v does not say the server ignores suffix", err)
		}

		var tm *tokenpace.Timing
		_, err := c.NewCompletion(ctx, fim("m", "def f(x):\n", "\n    return x\n"), tokenpace.WithTimingInto(&tm))
		refused("fill-in-the-middle, not streamed", err, "suffix")
		if tm == nil || tm.Err == nil {
			t.Errorf("fill-in-the-middle, not streamed: Timing %v, want one with the error", tm)
		}

		echo := fim("m", "def f(x):\n", "")
		echo.Echo = openai.Bool(true)
		s = c.NewCompletionStreaming(ctx, echo)
		readCompletion(s, s.Timing().Start)
		refused("echo", s.Err(), "echo")

		// Without a suffix, the same answer is the caller's.
		s = c.NewCompletionStreaming(ctx, fim("m", "def f(x):\n", ""))
		if text, _ := readCompletion(s, s.Timing().Start); s.Err() != nil || text != recordedCompletionText(t, stream) {
			t.Errorf("plain completion: text %q, err %v; want %q, nil", text, s.Err(), recordedCompletionText(t, stream))
		}

		r, err := tokenpace.NewRouter(c, tokenpace.Policy{},
			tokenpace.Route{Name: "llama"},
			tokenpace.Route{Name: "keeps", Options: []option.RequestOption{option.WithBaseURL("http://replay.invalid/keeps/v1/")}})
		if err != nil {
			t.Fatal(err)
		}
		s = r.NewCompletionStreaming(ctx, fim("m", "def f(x):\n", "\n    return x\n"))
		text, _ = readCompletion(s, s.Timing().Start)
		if s.Err() != nil || text != recordedCompletionText(t, keeps) {
			t.Errorf("Router: text %q, err %v; want the suffix-keeping route's %q", text, s.Err(), recordedCompletionText(t, keeps))
		}
		if a := s.Timing().Attempts; len(a) != 2 || a[0].Outcome != tokenpace.OutcomeFailed || a[1].Target != "keeps" || a[1].Outcome != tokenpace.OutcomeWon {
			t.Errorf("Router attempts = %+v, want llama failed, keeps won", a)
		}
	})
}

// recordedCompletionText is the text of a recorded completions stream.
func recordedCompletionText(t *testing.T, rec recording) string {
	t.Helper()
	text, _ := recordedCompletion(t, rec)
	return text
}
