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

// greetingServer answers as DeepSeek V4's thinking mode does, which wants
// the reasoning of every assistant turn back: a user who says "I am
// NAME." is greeted "Hello!" after a reasoning that names them; a later
// turn answers from the reasoning its assistant message carries, for the
// user it names, or, given another user's, for that one. The same words
// answer every user, so that only the message they answered tells their
// turns apart.
func greetingServer(t *testing.T) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Stream   bool `json:"stream"`
			Messages []struct {
				Role      string  `json:"role"`
				Content   string  `json:"content"`
				Reasoning *string `json:"reasoning_content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		name := strings.TrimSuffix(strings.TrimPrefix(req.Messages[0].Content, "I am "), ".")
		msgs := req.Messages
		if msgs[0].Role == "system" {
			msgs = msgs[1:]
		}
		reasoning, answer := name+" greets me.", "Hello!"
		if len(msgs) > 1 {
			reasoning, answer = "Answer by name.", "You are "+name+"."
			if m := msgs[1]; m.Reasoning == nil {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, `{"error":{"message":"The `+"`reasoning_content`"+` in the thinking mode must be passed back to the API.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`)
				return
			} else if !strings.HasPrefix(*m.Reasoning, name+" ") {
				answer = "You are " + strings.Fields(*m.Reasoning)[0] + "."
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, d := range []string{fmt.Sprintf(`"role":"assistant","content":null,"reasoning_content":%q`, reasoning), fmt.Sprintf(`"content":%q`, answer)} {
			fmt.Fprintf(w, "data: {\"id\":\"ds-3\",\"object\":\"chat.completion.chunk\",\"created\":1788000000,\"model\":\"deepseek-v4-flash\",\"choices\":[{\"index\":0,\"delta\":{%s},\"finish_reason\":null}]}\n\n", d)
		}
		_, _ = io.WriteString(w, "data: {\"id\":\"ds-3\",\"object\":\"chat.completion.chunk\",\"created\":1788000000,\"model\":\"deepseek-v4-flash\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(ts.Close)
	return ts
}

// Two users greeted with the same words through one Client: the client
// kept each turn's reasoning under a digest of its content alone, so the
// second user's overwrote the first's, and the first user's next request
// carried the second's reasoning ("You are Bob." to Ann, nil error;
// Bob's thinking sent in Ann's request). It is now kept under the
// content and the message it answered too, and given back to the turn
// that answered the same message. As system, each user names themself
// in a system message and says "Hi.": the turns answered the same
// message, and the second user's reasoning went in the first's request
// again; a turn is now told by the whole conversation before it.
func TestAnsweredTurnsOfTwoUsers(t *testing.T) {
	for _, system := range []bool{false, true} {
		t.Run(fmt.Sprintf("system=%v", system), func(t *testing.T) { answeredTurnsOfTwoUsers(t, system) })
	}
}

func answeredTurnsOfTwoUsers(t *testing.T, system bool) {
	ts := greetingServer(t)
	c := tokenpace.NewClient(openaiClient(ts.URL, ts.Client()))
	ctx := context.Background()
	turn := func(name string, msg *openai.ChatCompletionMessage) *tokenpace.Stream[openai.ChatCompletionChunk] {
		p := openai.ChatCompletionNewParams{Model: "deepseek-v4-flash",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("I am " + name + ".")}}
		if system {
			p.Messages = []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("I am " + name + "."), openai.UserMessage("Hi.")}
		}
		if msg != nil {
			p.Messages = append(p.Messages, msg.ToParam(), openai.UserMessage("Who am I?"))
		}
		s := c.NewStreaming(ctx, p)
		drain(t, s, 0)
		return s
	}
	users := []string{"Ann", "Bob"}
	var first []openai.ChatCompletionMessage
	for _, name := range users {
		s := turn(name, nil)
		if s.Err() != nil || s.Text() != "Hello!" {
			t.Fatalf("%s's first turn: %q, Err %v", name, s.Text(), s.Err())
		}
		first = append(first, s.Accumulated().Choices[0].Message)
	}
	for i, name := range users {
		s := turn(name, &first[i])
		if want := "You are " + name + "."; s.Err() != nil || s.Text() != want {
			t.Errorf("%s's second turn: %q, Err %v; want %q", name, s.Text(), s.Err(), want)
		}
	}
}
