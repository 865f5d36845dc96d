package tokenpace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

// kimiServer answers as vLLM serving Kimi K2.5 with its reasoning and
// tool parsers does: a call's id is Kimi's own, functions.NAME:N, N
// counting the calls of the conversation's earlier assistant messages
// (vllm/entrypoints/chat_utils.py, make_tool_call_id and
// get_history_tool_calls_cnt), so that the first call of every
// conversation to get_weather is functions.get_weather:0; the reasoning
// streams in "reasoning", and the chat input reads it back there for the
// model's interleaved thinking. A first turn thinks about the user's city
// and calls get_weather for it; a later one answers from the reasoning
// its assistant message carries: for the city the call named, or, with
// another's, for that other city.
func kimiServer(t *testing.T) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Stream   bool `json:"stream"`
			Messages []struct {
				Role      string  `json:"role"`
				Content   string  `json:"content"`
				Reasoning *string `json:"reasoning"`
				ToolCalls []struct {
					Function struct{ Arguments string } `json:"function"`
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		city := strings.TrimSuffix(strings.TrimPrefix(req.Messages[0].Content, "Weather in "), "?")
		delta := []string{
			fmt.Sprintf(`"reasoning":%q`, city+": "), `"reasoning":"ask the tool."`,
			`"tool_calls":[{"index":0,"id":"functions.get_weather:0","type":"function","function":{"name":"get_weather","arguments":""}}]`,
			fmt.Sprintf(`"tool_calls":[{"index":0,"function":{"arguments":%q}}]`, `{"city": "`+city+`"}`),
		}
		finish := "tool_calls"
		if len(req.Messages) > 1 {
			answer := "Sunny in " + city + "."
			if m := req.Messages[1]; m.Reasoning == nil || !strings.HasPrefix(*m.Reasoning, city+":") {
				answer = "I planned the weather of another city."
			}
			delta, finish = []string{fmt.Sprintf(`"content":%q`, answer)}, "stop"
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"id":"chatcmpl-k","object":"chat.completion.chunk","created":1788000000,"model":"moonshotai/Kimi-K2.5","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`+"\n\n")
		for _, d := range delta {
			fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-k\",\"object\":\"chat.completion.chunk\",\"created\":1788000000,\"model\":\"moonshotai/Kimi-K2.5\",\"choices\":[{\"index\":0,\"delta\":{%s},\"finish_reason\":null}]}\n\n", d)
		}
		fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-k\",\"object\":\"chat.completion.chunk\",\"created\":1788000000,\"model\":\"moonshotai/Kimi-K2.5\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":%q}]}\n\ndata: [DONE]\n\n", finish)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// Two conversations through one Client, each of whose first call is
// functions.get_weather:0: the client kept each turn's reasoning under
// the call's id alone, so the second conversation's overwrote the
// first's, and the first conversation's next turn was given the other
// user's thinking ("I planned the weather of another city.", nil error).
// What a turn carried is now kept under its first call's id and
// arguments too, and given back to the message whose call matches both.
func TestKimiCallIDsOfTwoConversations(t *testing.T) {
	ts := kimiServer(t)
	c := tokenpace.NewClient(openaiClient(ts.URL, ts.Client()))
	r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, tokenpace.Route{Name: "kimi"})
	if err != nil {
		t.Fatal(err)
	}
	for name, stream := range map[string]streamFunc{"client": c.NewStreaming, "router": r.NewStreaming} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			turn := func(city string, msg *openai.ChatCompletionMessage) *tokenpace.Stream[openai.ChatCompletionChunk] {
				p := openai.ChatCompletionNewParams{
					Model:    "moonshotai/Kimi-K2.5",
					Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in " + city + "?")},
					Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
						Name: "get_weather", Parameters: openai.FunctionParameters{"type": "object"},
					})},
				}
				if msg != nil {
					p.Messages = append(p.Messages, msg.ToParam(), openai.ToolMessage("sunny", msg.ToolCalls[0].ID))
				}
				s := stream(ctx, p)
				drain(t, s, 0)
				return s
			}
			cities := []string{"Paris", "Tokyo"}
			var first []openai.ChatCompletionMessage
			for _, city := range cities {
				s := turn(city, nil)
				msg := s.Accumulated().Choices[0].Message
				if s.Err() != nil || len(msg.ToolCalls) != 1 || msg.ToolCalls[0].ID != "functions.get_weather:0" {
					t.Fatalf("%s's first turn: calls %+v, Err %v; want one call functions.get_weather:0", city, msg.ToolCalls, s.Err())
				}
				first = append(first, msg)
			}
			for i, city := range cities {
				s := turn(city, &first[i])
				if want := "Sunny in " + city + "."; s.Err() != nil || s.Text() != want {
					t.Errorf("%s's second turn: %q, Err %v; want %q", city, s.Text(), s.Err(), want)
				}
			}
		})
	}
}
