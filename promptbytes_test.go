package tokenpace_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// TestTimingPromptBytes checks Timing.PromptBytes, the prompt's text as
// sent, through every entry point: the messages' text, string or text
// parts; none for a prompt with an image; a completion's prompt and
// suffix.
func TestTimingPromptBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := simClient(t, []simulate.Option{simulate.WithModel("m", &simulate.Fixed{})})
		r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, tokenpace.Route{Name: "only", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		text := chat("m", 4) // "Tell me about latency.", 22 bytes
		parts := chat("m", 4)
		parts.Messages = []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("Be brief."),
			openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{openai.TextContentPart("Tell me"), openai.TextContentPart(" more.")}),
		}
		image := chat("m", 4)
		image.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
			openai.TextContentPart("What is this?"),
			openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "data:image/png;base64,iVBORw0KGgo="}),
		})}
		timingOf := func(s *tokenpace.Stream[openai.ChatCompletionChunk]) *tokenpace.Timing {
			for s.Next() {
			}
			_ = s.Close()
			return s.Timing()
		}
		for _, tc := range []struct {
			name   string
			params openai.ChatCompletionNewParams
			want   int
		}{{"string", text, 22}, {"text parts", parts, 9 + 13}, {"an image", image, 0}} {
			if got := timingOf(c.NewStreaming(context.Background(), tc.params)).PromptBytes; got != tc.want {
				t.Errorf("%s: Client stream PromptBytes = %d, want %d", tc.name, got, tc.want)
			}
			if got := timingOf(r.NewStreaming(context.Background(), tc.params)).PromptBytes; got != tc.want {
				t.Errorf("%s: Router stream PromptBytes = %d, want %d", tc.name, got, tc.want)
			}
			var tm *tokenpace.Timing
			if _, err := c.New(context.Background(), tc.params, tokenpace.WithTimingInto(&tm)); err != nil || tm.PromptBytes != tc.want {
				t.Errorf("%s: New: %v, PromptBytes = %d, want %d", tc.name, err, tm.PromptBytes, tc.want)
			}
		}
		s := c.NewCompletionStreaming(context.Background(), fim("m", "func main() {", "}"))
		for s.Next() {
		}
		_ = s.Close()
		if got := s.Timing().PromptBytes; got != 14 {
			t.Errorf("completion: PromptBytes = %d, want 14", got)
		}
	})
}
