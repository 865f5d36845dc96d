package codec

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestWholeSoFar: the chunks of qwen-mt-plus and qwen-mt-turbo, each the
// whole text so far, give the pieces they add, and the last one, the
// complete result again, nothing and no output; a relay's prefix before
// the model's name changes nothing. Another model's chunks are left as
// they came, though one begins with the text before it; a chunk that does
// not begin with the text so far ends the reading for the stream, but
// once a chunk held the text so far and more it changes text given
// already, an error that cuts the stream; a chunk of two choices is left
// as it came.
func TestWholeSoFar(t *testing.T) {
	chunk := func(model, content string, finish bool) string {
		f := "null"
		if finish {
			f = `"stop"`
		}
		return fmt.Sprintf(`{"choices":[{"delta":{"content":%q},"finish_reason":%s,"index":0,"logprobs":null}],"object":"chat.completion.chunk","model":%q,"id":"chatcmpl-1"}`, content, f, model)
	}
	for _, tt := range []struct {
		name     string
		model    string
		contents []string
		finish   bool // the last chunk has a finish reason
		want     []string
		outputs  int // output-bearing deltas over the chunks
	}{
		{"qwen-mt-plus", "qwen-mt-plus", []string{"I", "I didn't", "I didn't laugh."}, false, []string{"I", " didn't", " laugh."}, 3},
		{"the result again at the finish", "qwen-mt-turbo", []string{"好", "好的", "好的。", "好的。"}, true, []string{"好", "的", "。", ""}, 3},
		{"a relay's prefix", "qwen/qwen-mt-plus", []string{"Hi", "Hi there"}, false, []string{"Hi", " there"}, 2},
		{"less than the text so far", "qwen-mt-plus", []string{"Hi there", "Hi"}, false, []string{"Hi there", ""}, 1},
		{"deltas after all", "qwen-mt-plus", []string{"Hi", " there", "Hi again"}, false, []string{"Hi", " there", "Hi again"}, 3},
		{"incremental Qwen-MT", "qwen-mt-flash", []string{"-", "--", "--x"}, false, []string{"-", "--", "--x"}, 3},
		{"another model", "qwen-plus", []string{"I", "I didn't"}, false, []string{"I", "I didn't"}, 2},
	} {
		s := DecoderFor(Chat(openai.ChatCompletionNewParams{}, true))
		var got []string
		outputs := 0
		for i, content := range tt.contents {
			ev, err := s.Decode([]byte(chunk(tt.model, content, tt.finish && i == len(tt.contents)-1)))
			if err != nil {
				t.Fatalf("%s: chunk %d: %v", tt.name, i, err)
			}
			got = append(got, ev.Chunk.Choices[0].Delta.Content)
			outputs += ev.Outputs
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || outputs != tt.outputs {
			t.Errorf("%s: contents %q, %d outputs; want %q, %d", tt.name, got, outputs, tt.want, tt.outputs)
		}
	}
	changed := DecoderFor(Chat(openai.ChatCompletionNewParams{}, true))
	for i, content := range []string{"I", "I didn't", "I did not laugh"} {
		_, err := changed.Decode([]byte(chunk("qwen-mt-plus", content, false)))
		var e *Error
		if got := errors.As(err, &e) && e.Truncated && e.Detail == wholeChanged; got != (i == 2) {
			t.Errorf("changed text: chunk %d: error %v, want a cut stream %v", i, err, i == 2)
		}
	}
	s := DecoderFor(Chat(openai.ChatCompletionNewParams{N: openai.Int(2)}, true))
	for _, data := range []string{
		chunk("qwen-mt-plus", "Hi", false),
		`{"choices":[{"delta":{"content":"Hi there"},"index":0},{"delta":{"content":"Hi"},"index":1}],"object":"chat.completion.chunk","model":"qwen-mt-plus","id":"chatcmpl-1"}`,
	} {
		ev, err := s.Decode([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		if c := ev.Chunk.Choices[0].Delta.Content; !strings.HasPrefix(c, "Hi") {
			t.Errorf("two choices: content %q, want it as it came", c)
		}
	}
}
