package tokenpace_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/tokenpace/tokenpace"
)

// vllmReasoning is the reasoning the vLLM emulator streams before its
// calls, in pieces.
var vllmReasoning = []string{"Two cities:", " one call", " each."}

// vllmServer answers as vLLM since v0.16 does for a model that thinks
// between its tool calls (MiniMax-M2 with --reasoning-parser): the
// reasoning streams in "reasoning" (vllm-project/vllm#27752; the old
// reasoning_content removed by #33402), and the chat input reads back
// only "reasoning": an assistant message without it reaches the model
// without its earlier thinking, which here answers the next turn
// without its plan. As groq, it stands for Groq instead, which streams
// "reasoning" too but refuses it back for some models, 400 "property
// 'reasoning' is unsupported". As ovhcloud, it stands for OVHcloud AI
// Endpoints (vLLM-served) during its move from reasoning_content to
// reasoning: every delta and message holds both, the unused one null
// (testdata/conformance/ovhcloud-reasoning-beside-null-reasoning-content.jsonl).
func vllmServer(t *testing.T, as string) *httptest.Server {
	groq := as == "groq"
	beside := ""
	if as == "ovhcloud" {
		beside = `"reasoning_content":null,`
	}
	reasoning := strings.Join(vllmReasoning, "")
	return emulator(t, func(w http.ResponseWriter, r *http.Request, turn agentTurn) {
		answered, recalled := false, false
		for _, m := range turn.Messages {
			if len(m.ToolCalls) == 0 {
				continue
			}
			answered = true
			recalled = m.Reasoned != nil && *m.Reasoned == reasoning
			if groq && m.Reasoned != nil {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, `{"error":{"message":"property 'reasoning' is unsupported","type":"invalid_request_error"}}`)
				return
			}
		}
		answer := "Sunny in Paris, rain in Berlin."
		if answered && !recalled && !groq {
			answer = "Sunny somewhere."
		}
		const calls = `"tool_calls":[{"index":0,"id":"chatcmpl-tool-a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},{"index":1,"id":"chatcmpl-tool-b","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Berlin\"}"}}]`
		if !turn.Stream {
			msg := fmt.Sprintf(`"content":null,%s"reasoning":%q,%s`, beside, reasoning, calls)
			if answered {
				msg = fmt.Sprintf(`"content":%q`, answer)
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1775000000,"model":"MiniMax-M2","choices":[{"index":0,"message":{"role":"assistant",%s},"finish_reason":"stop"}]}`, msg)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta, finish string) {
			fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1775000000,\"model\":\"MiniMax-M2\",\"choices\":[{\"index\":0,\"delta\":{%s},\"finish_reason\":%s}]}\n\n", delta, finish)
		}
		chunk(`"role":"assistant","content":""`, "null")
		if answered {
			chunk(fmt.Sprintf(`"content":%q`, answer), `"stop"`)
		} else {
			for _, p := range vllmReasoning {
				chunk(fmt.Sprintf(`%s"reasoning":%q`, beside, p), "null")
			}
			chunk(calls, `"tool_calls"`)
		}
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
	})
}

// A thinking model behind vLLM 0.16 or later: the assistant turn built
// with ToParam, which drops the reasoning, reached vLLM without it, since
// the client gave back only reasoning_content, which vLLM no longer reads:
// the model answered the next turn without its earlier thinking ("Sunny
// somewhere.", as openai-go alone gets it), with a nil error. The client
// now gives the reasoning back in the field it came in. A server that
// refuses it (Groq) is sent the request again without it, and later
// requests go without it at once.
func TestReasoningFieldGivenBack(t *testing.T) {
	ts := vllmServer(t, "vllm")
	client := func(ts *httptest.Server) *tokenpace.Client {
		return tokenpace.NewClient(openaiClient(ts.URL, ts.Client()))
	}
	const answer = "Sunny in Paris, rain in Berlin."
	t.Run("streamed", func(t *testing.T) { streamedTurns(t, client(ts).NewStreaming, 2, answer) })
	t.Run("whole", func(t *testing.T) { wholeTurns(t, client(ts), answer) })
	r, err := tokenpace.NewRouter(client(ts), tokenpace.Policy{}, tokenpace.Route{Name: "vllm"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("router", func(t *testing.T) { streamedTurns(t, r.NewStreaming, 2, answer) })
	t.Run("openai-go alone", func(t *testing.T) {
		oc := openaiClient(ts.URL, ts.Client())
		res, err := oc.Chat.Completions.New(context.Background(), weatherTurns(nil))
		if err != nil {
			t.Fatal(err)
		}
		res2, err := oc.Chat.Completions.New(context.Background(), weatherTurns(&res.Choices[0].Message))
		if err != nil || res2.Choices[0].Message.Content != "Sunny somewhere." {
			t.Fatalf("second turn through openai-go alone: %v, want the answer of a model that lost its thinking", err)
		}
	})

	groq := vllmServer(t, "groq")
	t.Run("a server that refuses it", func(t *testing.T) {
		c := client(groq)
		for _, want := range [][]int{{400, 200}, {200}} {
			s := c.NewStreaming(context.Background(), weatherTurns(nil))
			drain(t, s, 0)
			msg := s.Accumulated().Choices[0].Message
			s2 := c.NewStreaming(context.Background(), weatherTurns(&msg))
			drain(t, s2, 0)
			if got := statuses(s2.Timing()); s2.Err() != nil || s2.Text() != answer || !slices.Equal(got, want) {
				t.Errorf("second turn: %q, Err %v, HTTP statuses %v; want %q after %v", s2.Text(), s2.Err(), got, answer, want)
			}
		}
	})
}

// OVHcloud streamed the reasoning in "reasoning" beside a null
// reasoning_content on every delta: the client kept the null field's
// reasoning, none, and gave nothing back, so the next turn reached the
// model without its earlier thinking ("Sunny somewhere.", nil error). It
// now keeps the field that holds the text, and gives it back in it.
func TestReasoningFieldBesideNullGivenBack(t *testing.T) {
	ts := vllmServer(t, "ovhcloud")
	// Each conversation has a client of its own: what one kept must not
	// answer for another.
	client := func() *tokenpace.Client { return tokenpace.NewClient(openaiClient(ts.URL, ts.Client())) }
	const answer = "Sunny in Paris, rain in Berlin."
	t.Run("streamed", func(t *testing.T) { streamedTurns(t, client().NewStreaming, 2, answer) })
	t.Run("whole", func(t *testing.T) { wholeTurns(t, client(), answer) })
	r, err := tokenpace.NewRouter(client(), tokenpace.Policy{}, tokenpace.Route{Name: "ovhcloud"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("router", func(t *testing.T) { streamedTurns(t, r.NewStreaming, 2, answer) })
}
