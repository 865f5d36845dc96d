package tokenpace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/internal/servertest"
)

// deepseekReasoning is the reasoning the DeepSeek emulator streams before
// its calls, in pieces.
var deepseekReasoning = []string{"The user wants", " the weather in two", " cities: call the tool twice."}

// deepseekServer answers as DeepSeek's thinking mode does
// (api-docs.deepseek.com/guides/thinking_mode#tool-calls): a first turn
// reasons (reasoning_content) and calls get_weather twice; a later request
// whose assistant message made calls without giving back that reasoning
// is refused with 400, and one that gives it back is answered with text.
// When strict, it also refuses any request whose assistant message holds
// reasoning_content, as a server whose schema forbids unknown fields
// would: the client must then send the request again without it.
func deepseekServer(t *testing.T, strict bool) *httptest.Server {
	reasoning := ""
	for _, p := range deepseekReasoning {
		reasoning += p
	}
	return emulator(t, func(w http.ResponseWriter, r *http.Request, turn agentTurn) {
		answered := false
		for i, m := range turn.Messages {
			if len(m.ToolCalls) == 0 {
				continue
			}
			answered = true
			refusal := ""
			switch {
			case strict && m.Reasoning != nil:
				refusal = fmt.Sprintf("Additional properties are not allowed ('reasoning_content' was unexpected) - 'messages.%d'", i)
			case !strict && (m.Reasoning == nil || *m.Reasoning != reasoning):
				refusal = fmt.Sprintf("Missing `reasoning_content` field in the assistant message at message index %d. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls", i)
			}
			if refusal != "" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`, refusal)
				return
			}
		}
		const calls = `"tool_calls":[{"index":0,"id":"call_00_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},{"index":1,"id":"call_01_b","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Berlin\"}"}}]`
		if !turn.Stream {
			msg := fmt.Sprintf(`"content":"","reasoning_content":%q,%s`, reasoning, calls)
			if answered {
				msg = `"content":"Sunny in Paris, rain in Berlin.","reasoning_content":"Both sunny and rainy."`
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"ds-1","object":"chat.completion","created":1775000000,"model":"deepseek-v4-flash","choices":[{"index":0,"message":{"role":"assistant",%s},"finish_reason":"stop"}]}`, msg)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta, finish string) {
			fmt.Fprintf(w, "data: {\"id\":\"ds-1\",\"object\":\"chat.completion.chunk\",\"created\":1775000000,\"model\":\"deepseek-v4-flash\",\"choices\":[{\"index\":0,\"delta\":{%s},\"finish_reason\":%s}]}\n\n", delta, finish)
		}
		chunk(`"role":"assistant","content":null,"reasoning_content":""`, "null")
		if answered {
			chunk(`"content":null,"reasoning_content":"Both known."`, "null")
			chunk(`"content":"Sunny in Paris, rain in Berlin."`, `"stop"`)
		} else {
			for _, p := range deepseekReasoning {
				chunk(fmt.Sprintf(`"content":null,"reasoning_content":%q`, p), "null")
			}
			chunk(calls, `"tool_calls"`)
		}
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
	})
}

// TestReasoningContentGivenBack checks the tool agent's conversation on
// DeepSeek's thinking mode, over loopback HTTP: the assistant turn built
// with openai-go's ToParam, which drops reasoning_content, gets it back
// from the client, and the second request is answered; through openai-go
// alone it is refused with 400. A server that refuses the field is sent
// the request again without it.
func TestReasoningContentGivenBack(t *testing.T) {
	ts := deepseekServer(t, false)
	client := func(ts *httptest.Server) *tokenpace.Client {
		return tokenpace.NewClient(openaiClient(ts.URL, ts.Client()))
	}
	const answer = "Sunny in Paris, rain in Berlin."
	t.Run("streamed", func(t *testing.T) { streamedTurns(t, client(ts).NewStreaming, 2, answer) })
	t.Run("whole", func(t *testing.T) { wholeTurns(t, client(ts), answer) })
	t.Run("openai-go alone", func(t *testing.T) { refusedAlone(t, ts) })

	strict := deepseekServer(t, true)
	t.Run("a server that refuses it", func(t *testing.T) {
		c := client(strict)
		// The first conversation's second turn is refused for the field,
		// and sent again without it; the next one's goes without it at
		// once.
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

// deepseekV4Server answers as DeepSeek V4's thinking mode does: every
// answer reasons first (reasoning_content) and then says "Hello!"; a
// request whose assistant message, with or without tool calls, lacks the
// reasoning of its turn (or, for a continued turn, does not start with
// it) is refused with 400. A stream of the model
// "deepseek-v4-flaky" breaks after its reasoning and "Hel"; the model
// "deepseek-v4-plain" answers without reasoning.
func deepseekV4Server(t *testing.T) *httptest.Server {
	const reasoning = "A greeting: answer in kind."
	return emulator(t, func(w http.ResponseWriter, r *http.Request, turn agentTurn) {
		for _, m := range turn.Messages {
			if m.Role == "assistant" && (m.Reasoning == nil || !strings.HasPrefix(*m.Reasoning, reasoning)) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, `{"error":{"message":"The `+"`reasoning_content`"+` in the thinking mode must be passed back to the API.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`)
				return
			}
		}
		if !turn.Stream {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"ds-2","object":"chat.completion","created":1775000000,"model":"deepseek-v4-flash","choices":[{"index":0,"message":{"role":"assistant","content":"Hello!","reasoning_content":%q},"finish_reason":"stop"}]}`, reasoning)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		deltas := []string{fmt.Sprintf(`"role":"assistant","content":null,"reasoning_content":%q`, reasoning[:11]),
			fmt.Sprintf(`"content":null,"reasoning_content":%q`, reasoning[11:]), `"content":"Hello"`, `"content":"!"`}
		switch turn.Model {
		case "deepseek-v4-flaky":
			deltas[2], deltas = `"content":"Hel"`, deltas[:3]
		case "deepseek-v4-plain": // answers without reasoning
			deltas = deltas[2:]
		}
		for _, delta := range deltas {
			fmt.Fprintf(w, "data: {\"id\":\"ds-2\",\"object\":\"chat.completion.chunk\",\"created\":1775000000,\"model\":\"deepseek-v4-flash\",\"choices\":[{\"index\":0,\"delta\":{%s},\"finish_reason\":null}]}\n\n", delta)
		}
		if turn.Model != "deepseek-v4-flaky" {
			_, _ = io.WriteString(w, "data: {\"id\":\"ds-2\",\"object\":\"chat.completion.chunk\",\"created\":1775000000,\"model\":\"deepseek-v4-flash\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		}
	})
}

// TestReasoningContentOfEveryTurn: DeepSeek V4's thinking mode wants the
// reasoning of every turn back, not only of a turn that made calls. A
// conversation of two user turns, the assistant's first answer turned
// into a request with ToParam, gets its second answer, streamed or not.
func TestReasoningContentOfEveryTurn(t *testing.T) {
	ts := deepseekV4Server(t)
	for _, stream := range []bool{true, false} {
		c := tokenpace.NewClient(openaiClient(ts.URL, ts.Client()))
		p := openai.ChatCompletionNewParams{Model: "deepseek-v4-flash", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi")}}
		answer := func() (*openai.ChatCompletionMessage, error) {
			if !stream {
				res, err := c.New(context.Background(), p)
				if err != nil {
					return nil, err
				}
				return &res.Choices[0].Message, nil
			}
			s := c.NewStreaming(context.Background(), p)
			drain(t, s, 0)
			if err := s.Err(); err != nil {
				return nil, err
			}
			return &s.Accumulated().Choices[0].Message, nil
		}
		msg, err := answer()
		if err != nil || msg.Content != "Hello!" {
			t.Fatalf("stream %v, first turn: %v", stream, err)
		}
		p.Messages = append(p.Messages, msg.ToParam(), openai.UserMessage("And you?"))
		if msg, err = answer(); err != nil || msg.Content != "Hello!" {
			t.Errorf("stream %v, second turn: %v, want an answer", stream, err)
		}
	}
}

// TestReasoningContentOfAContinuation: a Router continues an answer that
// broke on DeepSeek V4's thinking mode; the continuation's assistant
// message, the output so far, carries the reasoning of its turn back, or
// the server refuses it. An answer that breaks twice is continued twice,
// each continuation's message starting with its turn's reasoning.
func TestReasoningContentOfAContinuation(t *testing.T) {
	for _, next := range []string{"deepseek-v4-flash", "deepseek-v4-plain"} {
		t.Run(next, func(t *testing.T) { continuedOnDeepSeek(t, "HelHello!", "deepseek-v4-flaky", next) })
	}
	t.Run("twice", func(t *testing.T) {
		continuedOnDeepSeek(t, "HelHelHello!", "deepseek-v4-flaky", "deepseek-v4-flaky", "deepseek-v4-flash")
	})
}

// continuedOnDeepSeek sends an answer through a Router over routes of the
// models given, the first ones breaking on DeepSeek V4 and continued on
// the next, wants text in all, and then asks the next turn.
func continuedOnDeepSeek(t *testing.T, text string, models ...string) {
	ts := deepseekV4Server(t)
	c := tokenpace.NewClient(openaiClient(ts.URL, ts.Client()))
	routes := make([]tokenpace.Route, len(models))
	for i, m := range models {
		routes[i] = tokenpace.Route{Name: fmt.Sprintf("%d %s", i, m), Model: m}
	}
	r, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true}, routes...)
	if err != nil {
		t.Fatal(err)
	}
	p := openai.ChatCompletionNewParams{Model: "deepseek-v4-flash", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi")}}
	s := r.NewStreaming(context.Background(), p)
	drain(t, s, 0)
	tm := s.Timing()
	want, ok := make([]tokenpace.Outcome, len(models)), make([]int, len(models))
	for i := range want {
		want[i], ok[i] = tokenpace.OutcomeFailed, 200
	}
	want[len(want)-1] = tokenpace.OutcomeWon
	if s.Err() != nil || s.Text() != text || !slices.Equal(outcomes(tm), want) {
		t.Errorf("Text() = %q, Err() = %v, attempts %v; want %q, attempts %v", s.Text(), s.Err(), outcomes(tm), text, want)
	}
	if got := statuses(tm); !slices.Equal(got, ok) {
		t.Errorf("HTTP statuses %v, want %v: every continuation answered at once", got, ok)
	}
	// The next turn gives the continued answer back, with the reasoning
	// of its whole turn.
	p.Messages = append(p.Messages, s.Accumulated().Choices[0].Message.ToParam(), openai.UserMessage("And you?"))
	s2 := c.NewStreaming(context.Background(), p)
	drain(t, s2, 0)
	if s2.Err() != nil || s2.Text() != "Hello!" {
		t.Errorf("next turn: %q, Err() = %v; want \"Hello!\"", s2.Text(), s2.Err())
	}
}

// TestReasoningContentServerThatCloses: llama.cpp's server streams a
// thinking model's reasoning_content and closes every connection after a
// stream. The second turn, which meets the close and is sent again, still
// carries the first turn's reasoning back, in the request sent again too.
func TestReasoningContentServerThatCloses(t *testing.T) {
	base := "http://" + servertest.Closing(t, func(req *http.Request) (string, string) {
		var turn agentTurn
		_ = json.NewDecoder(req.Body).Decode(&turn)
		content := "Hello!"
		for _, m := range turn.Messages {
			if m.Role == "assistant" {
				content = "lost"
				if m.Reasoning != nil && *m.Reasoning == "Greet back." {
					content = "kept"
				}
			}
		}
		chunk := func(delta string) string {
			return `data: {"id":"l","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{` + delta + `},"finish_reason":null}]}` + "\n\n"
		}
		return "text/event-stream", chunk(`"reasoning_content":"Greet back."`) + chunk(fmt.Sprintf(`"content":%q`, content)) + stopDone
	})
	c := tokenpace.NewClient(openaiClient(base, http.DefaultClient))
	p := openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi")}}
	s := c.NewStreaming(context.Background(), p)
	drain(t, s, 0)
	p.Messages = append(p.Messages, s.Accumulated().Choices[0].Message.ToParam(), openai.UserMessage("And?"))
	s2 := c.NewStreaming(context.Background(), p)
	drain(t, s2, 0)
	if err := s2.Err(); err != nil || s2.Text() != "kept" {
		t.Fatalf("second turn: Text() = %q, Err() = %v, want the reasoning kept", s2.Text(), err)
	}
	if tm := s2.Timing(); len(tm.HTTP) < 2 {
		t.Errorf("second turn: %d HTTP requests, want the close met and the request sent again", len(tm.HTTP))
	}
}
