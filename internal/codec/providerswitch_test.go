package codec

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestProviderSwitch: a gpt4free stream whose chunks name another
// provider once the first one's carried text (its AnyProvider went on to
// the next provider after a failure, whose answer starts over) ends cut
// at the first such chunk that carries text; a switch before any text,
// a stream whose provider never changes, a stream of chunks without a
// provider and an event without one between (claude-code-router's `{}`
// before OpenRouter's error) are read as they came; so is a switch after
// reasoning alone (gpt4free's AgentTools, whose next step, under another
// provider, follows its tool-call fence sent as reasoning; or a provider
// that failed while it reasoned: the text is the next one's, whole).
func TestProviderSwitch(t *testing.T) {
	chunk := func(provider, content string) string {
		p := ""
		if provider != "" {
			p = fmt.Sprintf(`"provider":%q,`, provider)
		}
		field := "content"
		if r, ok := strings.CutPrefix(content, "~"); ok { // a reasoning piece
			field, content = "reasoning", r
		}
		return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m",%s"choices":[{"index":0,"delta":{"role":"assistant",%q:%q},"finish_reason":null}]}`, p, field, content)
	}
	type step struct{ provider, content string }
	for _, tt := range []struct {
		name   string
		steps  []step
		failAt int // the chunk refused, -1 for none
	}{
		{"switch after text", []step{{"PollinationsAI", "Hi"}, {"PollinationsAI", " there"}, {"DeepInfra", "Hi"}}, 2},
		{"switch before text", []step{{"PollinationsAI", ""}, {"DeepInfra", "Hi"}, {"DeepInfra", " there"}}, -1},
		{"one provider", []step{{"PollinationsAI", "Hi"}, {"PollinationsAI", " there"}, {"PollinationsAI", ""}}, -1},
		{"no provider", []step{{"", "Hi"}, {"", " there"}, {"", "Hi"}}, -1},
		{"an event without a provider between", []step{{"DeepInfra", "Hi"}, {"", ""}, {"DeepInfra", " there"}}, -1},
		{"another provider's chunk without output", []step{{"PollinationsAI", "Hi"}, {"DeepInfra", ""}, {"DeepInfra", "Hi"}}, 2},
		{"an agent's next step after its tool-call fence", []step{{"OpenaiChat", "Let me look."}, {"OpenaiChat", "~\n```json\n{\"tool_calls\": []}\n```\n"}, {"PollinationsAI", "It says hi."}, {"PollinationsAI", " Done."}}, -1},
		{"a switch after reasoning alone", []step{{"PollinationsAI", "~Weighing"}, {"DeepInfra", "~Weighing"}, {"DeepInfra", "Hi"}}, -1},
		{"a switch after text, then reasoning and text", []step{{"PollinationsAI", "~Weighing"}, {"PollinationsAI", "Hi"}, {"DeepInfra", "~Weighing"}}, 2},
	} {
		s := DecoderFor(Chat(openai.ChatCompletionNewParams{}, true))
		failed := -1
		for i, st := range tt.steps {
			_, err := s.Decode([]byte(chunk(st.provider, st.content)))
			if err != nil {
				var ce *Error
				if !errors.As(err, &ce) || !ce.Truncated || ce.Detail != providerSwitched {
					t.Fatalf("%s: chunk %d: %v, want a cut stream (%q)", tt.name, i, err, providerSwitched)
				}
				failed = i
				break
			}
		}
		if failed != tt.failAt {
			t.Errorf("%s: refused chunk %d, want %d", tt.name, failed, tt.failAt)
		}
	}
}
