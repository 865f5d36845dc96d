package tokenpace_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
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
// (and about the user a system message names) and calls get_weather for
// it, its arguments written as the model writes them, `{"city": "CITY"}`;
// a later one answers from the reasoning its assistant message carries:
// for the city the call named, or, with another's, for that other city.
// A later turn without the reasoning is refused as Moonshot's API refuses
// it (400 "thinking is enabled but reasoning_content is missing in
// assistant tool call message": continuedev/continue#11711).
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
		msgs, who := req.Messages, ""
		if msgs[0].Role == "system" {
			who, msgs = msgs[0].Content+" ", msgs[1:]
		}
		city := strings.TrimSuffix(strings.TrimPrefix(msgs[0].Content, "Weather in "), "?")
		delta := []string{
			fmt.Sprintf(`"reasoning":%q`, who+city+": "), `"reasoning":"ask the tool."`,
			`"tool_calls":[{"index":0,"id":"functions.get_weather:0","type":"function","function":{"name":"get_weather","arguments":""}}]`,
			fmt.Sprintf(`"tool_calls":[{"index":0,"function":{"arguments":%q}}]`, `{"city": "`+city+`"}`),
		}
		finish := "tool_calls"
		if len(msgs) > 1 {
			m := msgs[1]
			if m.Reasoning == nil {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, `{"error":{"message":"thinking is enabled but reasoning_content is missing in assistant tool call message at index 1","type":"invalid_request_error"}}`)
				return
			}
			answer := "Sunny in " + city + "."
			if !strings.HasPrefix(*m.Reasoning, who+city+":") {
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

// What a Kimi turn is given back when its message or its conversation is
// not the one another conversation's turn of the same call id had. The
// client gave back what was kept under the call's id alone to a message
// whose first call's arguments matched no turn's digest (a caller that
// re-serialised them, `{"city":"Paris"}` for the model's
// `{"city": "Paris"}`, as frameworks that parse arguments do), and one
// turn's reasoning to another's whose call and the message it answered
// were the same words: the other conversation's, and the other user's
// thinking, in either case ("I planned the weather of another city.",
// nil error). A turn is now told by the whole conversation before it and
// its arguments read as JSON; a Kimi id alone names no turn, so a call
// whose arguments the caller changed is given nothing, and Moonshot's
// refusal reaches the caller rather than another user's reasoning.
func TestKimiCallsGivenOnlyTheirOwnReasoning(t *testing.T) {
	ts := kimiServer(t)
	type conv struct{ system, city string }
	compact := func(m *openai.ChatCompletionMessage) {
		var v map[string]any
		if err := json.Unmarshal([]byte(m.ToolCalls[0].Function.Arguments), &v); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		m.ToolCalls[0].Function.Arguments = string(b)
	}
	edit := func(m *openai.ChatCompletionMessage) {
		m.ToolCalls[0].Function.Arguments = strings.Replace(m.ToolCalls[0].Function.Arguments, "}", `, "unit": "C"}`, 1)
	}
	for _, tt := range []struct {
		name  string
		convs []conv
		edit  func(*openai.ChatCompletionMessage)
		want  []string // each conversation's second turn; "" for Moonshot's refusal
	}{
		{"arguments re-serialised", []conv{{"", "Paris"}, {"", "Tokyo"}}, compact, []string{"Sunny in Paris.", "Sunny in Tokyo."}},
		{"the same call by two users", []conv{{"User: Ann.", "Paris"}, {"User: Bob.", "Paris"}}, nil, []string{"Sunny in Paris.", "Sunny in Paris."}},
		{"arguments edited in one conversation", []conv{{"", "Paris"}}, edit, []string{""}},
		{"arguments edited in two conversations", []conv{{"", "Paris"}, {"", "Tokyo"}}, edit, []string{"", ""}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := tokenpace.NewClient(openaiClient(ts.URL, ts.Client()))
			turn := func(cv conv, msg *openai.ChatCompletionMessage) *tokenpace.Stream[openai.ChatCompletionChunk] {
				p := openai.ChatCompletionNewParams{
					Model: "moonshotai/Kimi-K2.5",
					Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
						Name: "get_weather", Parameters: openai.FunctionParameters{"type": "object"},
					})},
				}
				if cv.system != "" {
					p.Messages = append(p.Messages, openai.SystemMessage(cv.system))
				}
				p.Messages = append(p.Messages, openai.UserMessage("Weather in "+cv.city+"?"))
				if msg != nil {
					p.Messages = append(p.Messages, msg.ToParam(), openai.ToolMessage("sunny", msg.ToolCalls[0].ID))
				}
				s := c.NewStreaming(context.Background(), p)
				drain(t, s, 0)
				return s
			}
			var first []openai.ChatCompletionMessage
			for _, cv := range tt.convs {
				s := turn(cv, nil)
				if s.Err() != nil || len(s.Accumulated().Choices) != 1 {
					t.Fatalf("%+v's first turn: Err %v", cv, s.Err())
				}
				first = append(first, s.Accumulated().Choices[0].Message)
			}
			for i, cv := range tt.convs {
				if tt.edit != nil {
					tt.edit(&first[i])
				}
				s := turn(cv, &first[i])
				var apiErr *openai.Error
				switch want := tt.want[i]; {
				case want == "" && (!errors.As(s.Err(), &apiErr) || apiErr.StatusCode != http.StatusBadRequest):
					t.Errorf("%+v's second turn: %q, Err %v; want the server's refusal of a turn without its reasoning", cv, s.Text(), s.Err())
				case want != "" && (s.Err() != nil || s.Text() != want):
					t.Errorf("%+v's second turn: %q, Err %v; want %q", cv, s.Text(), s.Err(), want)
				}
			}
		})
	}
}

// Four users' conversations through one Client at once, each of whose
// calls has the same id and arguments: their first turns at once, then
// their second turns at once; each second turn is given its own user's
// reasoning (run with -race: the store is shared).
func TestKimiConversationsAtOnce(t *testing.T) {
	ts := kimiServer(t)
	c := tokenpace.NewClient(openaiClient(ts.URL, ts.Client()))
	users := []string{"User: Ann.", "User: Bob.", "User: Cid.", "User: Dee."}
	params := make([]openai.ChatCompletionNewParams, len(users))
	got := make([]string, len(users))
	errs := make([]error, len(users))
	at := func(turn func(i int)) {
		var wg sync.WaitGroup
		for i := range users {
			wg.Go(func() { turn(i) })
		}
		wg.Wait()
	}
	at(func(i int) {
		params[i] = openai.ChatCompletionNewParams{Model: "moonshotai/Kimi-K2.5", Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage(users[i]), openai.UserMessage("Weather in Paris?")}}
		s := c.NewStreaming(context.Background(), params[i])
		for s.Next() {
		}
		if errs[i] = s.Err(); errs[i] == nil && len(s.Accumulated().Choices) == 1 {
			msg := s.Accumulated().Choices[0].Message
			params[i].Messages = append(params[i].Messages, msg.ToParam(), openai.ToolMessage("sunny", msg.ToolCalls[0].ID))
		}
	})
	for i, err := range errs {
		if err != nil || len(params[i].Messages) != 4 {
			t.Fatalf("%s's first turn: Err %v", users[i], err)
		}
	}
	at(func(i int) {
		s := c.NewStreaming(context.Background(), params[i])
		for s.Next() {
		}
		got[i], errs[i] = s.Text(), s.Err()
	})
	for i, user := range users {
		if errs[i] != nil || got[i] != "Sunny in Paris." {
			t.Errorf("%s's second turn: %q, Err %v; want %q", user, got[i], errs[i], "Sunny in Paris.")
		}
	}
}
