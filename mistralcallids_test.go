package tokenpace_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
)

// idServer is a chat server with tools: a conversation's first turn
// calls get_weather under an id of the server's own (id), its next
// answers from the tool's answer. A tool message must answer a call of
// the assistant message before it, or the request is refused as OpenAI
// refuses it. Models in nine take only ids of 9 letters and digits, on
// calls and tool messages alike, and refuse any other as Mistral's API
// does (400, invalid_function_call, code "3280": editor-code-assistant/eca#233,
// nearai/ironclaw#1241; mistral_common's validator). Models in template
// are served by vLLM under its own Mistral chat template, which refuses
// an id shorter than 9 (400, "Tool call IDs should be alphanumeric
// strings with length >= 9! (1)ID": vllm examples/
// tool_chat_template_mistral_parallel.jinja) and takes a longer one, of
// its last 9 characters. Models in pattern take only ids of 1 to 64
// letters, digits, '_' and '-' (Anthropic's and Bedrock's form), and
// refuse any other with the body pattern gives for it. The first fail
// requests are answered 503. ids records, for each request, its model
// and the ids its messages named.
type idServer struct {
	id       string
	nine     map[string]bool
	template map[string]bool
	pattern  map[string]func(id string) string
	fail     int
	mu       sync.Mutex
	ids      []string
}

var (
	mistralID = regexp.MustCompile(`^[a-zA-Z0-9]{9}$`)
	safeID    = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
)

func (s *idServer) serve(t *testing.T) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Stream   bool   `json:"stream"`
			Messages []struct {
				Role       string `json:"role"`
				ToolCallID string `json:"tool_call_id"`
				ToolCalls  []struct {
					ID string `json:"id"`
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var named []string
		refuse, open := "", map[string]bool{}
		for _, m := range req.Messages {
			var ids []string
			if m.Role == "tool" {
				ids = append(ids, m.ToolCallID)
			}
			for _, c := range m.ToolCalls {
				ids = append(ids, c.ID)
				open[c.ID] = true
			}
			for _, id := range ids {
				named = append(named, id)
				if refuse == "" && s.nine[req.Model] && !mistralID.MatchString(id) {
					refuse = `{"object":"error","message":"Tool call id was ` + id + ` but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_function_call","param":null,"code":"3280","raw_status_code":400}`
				}
				if refuse == "" && s.pattern[req.Model] != nil && !safeID.MatchString(id) {
					refuse = s.pattern[req.Model](id)
				}
				if refuse == "" && s.template[req.Model] && len(id) < 9 {
					refuse = `{"object":"error","message":"Tool call IDs should be alphanumeric strings with length >= 9! (1)` + id + `","type":"BadRequestError","param":null,"code":400}`
				}
			}
			if m.Role == "tool" && !open[m.ToolCallID] && refuse == "" {
				refuse = `{"error":{"message":"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.","type":"invalid_request_error","param":"messages.[2].role","code":null}}`
			}
		}
		s.mu.Lock()
		s.ids = append(s.ids, req.Model+" "+strings.Join(named, ","))
		fail := s.fail > 0
		s.fail--
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case fail:
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"error":{"message":"overloaded","type":"server_error"}}`)
			return
		case refuse != "":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, refuse)
			return
		}
		delta, finish := fmt.Sprintf(`"tool_calls":[{"index":0,"id":%q,"type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]`, s.id), "tool_calls"
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			delta, finish = `"content":"Sunny in Paris, from `+req.Model+`."`, "stop"
		}
		if !req.Stream {
			fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1788000000,"model":%q,"choices":[{"index":0,"message":{"role":"assistant",%s},"finish_reason":%q}]}`, req.Model, strings.ReplaceAll(delta, `"index":0,`, ""), finish)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1788000000,\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",%s},\"finish_reason\":null}]}\n\n", req.Model, delta)
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1788000000,\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":%q}]}\n\ndata: [DONE]\n\n", req.Model, finish)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func (s *idServer) asked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ids)
}

// A Router whose first route is an OpenAI-compatible server and whose
// second is Mistral's API: the first answers a conversation's first turn
// with a call under its id, call_ and 24 letters and digits; its next
// turn, built with ToParam, finds the first route down and falls back to
// Mistral, which refuses the other server's id. Before, the caller got
// Mistral's 400 (`KindRequest`, "Tool call id was call_… but must be …"),
// a failed request where the second route would have answered. The
// request is now sent again with the ids written as 9 letters and
// digits, the call's and the tool message's the same, and later turns go
// so from the start; the caller's own ids stay in its messages, and a
// server that takes them gets them as the caller wrote them.
func TestMistralCallIDsAfterAnotherRoute(t *testing.T) {
	const openaiID = "call_PTLP8xhu3uwZk4l3nlnrrJha"
	first := &idServer{id: openaiID}
	mistral := &idServer{id: "D681PevKs", nine: map[string]bool{"mistral-large-latest": true}}
	fc := openaiClient(first.serve(t).URL, http.DefaultClient)
	mc := openaiClient(mistral.serve(t).URL, http.DefaultClient)
	r, err := tokenpace.NewRouter(tokenpace.NewClient(fc), tokenpace.Policy{},
		tokenpace.Route{Name: "openai", Client: &fc, Model: "gpt-4.1"},
		tokenpace.Route{Name: "mistral", Client: &mc, Model: "mistral-large-latest"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s := r.NewStreaming(ctx, weatherTurn("gpt-4.1", nil))
	drain(t, s, 0)
	msg := s.Accumulated().Choices[0].Message
	if s.Err() != nil || len(msg.ToolCalls) != 1 || msg.ToolCalls[0].ID != openaiID {
		t.Fatalf("first turn: calls %+v, Err %v; want one call %s", msg.ToolCalls, s.Err(), openaiID)
	}

	first.mu.Lock()
	first.fail = 2 // down for the next two turns
	first.mu.Unlock()
	next := weatherTurn("gpt-4.1", &msg)
	for turn := 2; turn <= 3; turn++ {
		s = r.NewStreaming(ctx, next)
		drain(t, s, 0)
		if want := "Sunny in Paris, from mistral-large-latest."; s.Err() != nil || s.Text() != want || s.Accumulated().Choices[0].Message.Content != want {
			t.Fatalf("turn %d: %q, Err %v; want %q from the second route", turn, s.Text(), s.Err(), want)
		}
	}
	if got := next.Messages[1].OfAssistant.ToolCalls[0].OfFunction.ID; got != openaiID {
		t.Errorf("the caller's message holds id %q after the calls, want its own %q", got, openaiID)
	}
	asked := mistral.asked()
	if len(asked) != 3 || asked[0] != "mistral-large-latest "+openaiID+","+openaiID {
		t.Fatalf("Mistral was asked %q; want the caller's ids first, then the same request sent again, then one request", asked)
	}
	for _, a := range asked[1:] {
		ids := strings.Split(strings.TrimPrefix(a, "mistral-large-latest "), ",")
		if len(ids) != 2 || ids[0] != ids[1] || !mistralID.MatchString(ids[0]) {
			t.Errorf("Mistral was asked %q; want the call's id and the tool message's one id of 9 letters and digits", a)
		}
	}
	if asked[1] != asked[2] {
		t.Errorf("the second and third turn named %q and %q; want the same ids each time", asked[1], asked[2])
	}

	// The first route, well again, gets the caller's ids as they are.
	s = r.NewStreaming(ctx, next)
	drain(t, s, 0)
	if want := "Sunny in Paris, from gpt-4.1."; s.Err() != nil || s.Text() != want {
		t.Errorf("fourth turn: %q, Err %v; want %q", s.Text(), s.Err(), want)
	}
	if got := first.asked(); got[len(got)-1] != "gpt-4.1 "+openaiID+","+openaiID {
		t.Errorf("the first route was asked %q last; want the caller's ids", got[len(got)-1])
	}
}

// One gateway serving a Mistral model and another: a Client whose caller
// switches models within a conversation. Mistral's refusal is learnt for
// its model alone: the gateway's other model keeps the caller's ids.
func TestMistralCallIDsKeyedByModel(t *testing.T) {
	gw := &idServer{id: "call_k2x8f0qa", nine: map[string]bool{"mistral-small-latest": true}}
	c := tokenpace.NewClient(openaiClient(gw.serve(t).URL, http.DefaultClient))
	ctx := context.Background()
	s := c.NewStreaming(ctx, weatherTurn("qwen3-32b", nil))
	drain(t, s, 0)
	msg := s.Accumulated().Choices[0].Message
	if s.Err() != nil || len(msg.ToolCalls) != 1 {
		t.Fatalf("first turn: Err %v", s.Err())
	}
	for _, model := range []string{"mistral-small-latest", "qwen3-32b", "mistral-small-latest"} {
		s = c.NewStreaming(ctx, weatherTurn(model, &msg))
		drain(t, s, 0)
		if want := "Sunny in Paris, from " + model + "."; s.Err() != nil || s.Text() != want {
			t.Errorf("%s: %q, Err %v; want %q", model, s.Text(), s.Err(), want)
		}
	}
	asked := gw.asked()
	if len(asked) != 5 || asked[3] != "qwen3-32b call_k2x8f0qa,call_k2x8f0qa" || asked[2] != asked[4] {
		t.Errorf("the gateway was asked %q; want the Mistral model's request sent again once with its ids written, the other model's with the caller's, the Mistral model's later one written from the start", asked)
	}
}

// A conversation of TGI's, whose streamed calls carry the id "" (see
// tgi-toolcalls-object), carried on by Mistral's API in a whole answer:
// Mistral refuses the empty id as any other not of 9 letters and digits.
// Before, the request was sent again the same, refused again, and the
// caller got the 400: a failed request. The empty id is now written as
// one of 9 letters and digits, the call's and the tool message's the
// same; the caller waited for both requests, and its Timing lists them.
func TestMistralCallIDsEmpty(t *testing.T) {
	mistral := &idServer{id: "D681PevKs", nine: map[string]bool{"mistral-large-latest": true}}
	c := tokenpace.NewClient(openaiClient(mistral.serve(t).URL, http.DefaultClient))
	tgi := openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ChatCompletionMessageToolCallUnion{{
		Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "get_weather", Arguments: `{"city":"Paris"}`},
	}}}
	var tm *tokenpace.Timing
	got, err := c.New(context.Background(), weatherTurn("mistral-large-latest", &tgi), tokenpace.WithTimingInto(&tm))
	if want := "Sunny in Paris, from mistral-large-latest."; err != nil || got.Choices[0].Message.Content != want {
		t.Fatalf("New: %v, %v; want %q", got, err, want)
	}
	asked := mistral.asked()
	if len(asked) != 2 || asked[0] != "mistral-large-latest ," {
		t.Fatalf("Mistral was asked %q; want the caller's empty ids, then the request sent again", asked)
	}
	if ids := strings.Split(strings.TrimPrefix(asked[1], "mistral-large-latest "), ","); len(ids) != 2 || ids[0] != ids[1] || !mistralID.MatchString(ids[0]) {
		t.Errorf("Mistral was asked %q again; want the call's id and the tool message's one id of 9 letters and digits", asked[1])
	}
	if tm == nil || len(tm.HTTP) != 2 || tm.HTTP[0].Status != http.StatusBadRequest || tm.HTTP[1].Status != http.StatusOK || !tm.Sent.Equal(tm.HTTP[0].Start) || tm.E2E() < tm.End.Sub(tm.HTTP[0].Start) {
		t.Errorf("Timing %+v; want both requests listed, 400 then 200, the call's time from the first", tm)
	}
}

// A refusal whose words are not the server's of the request's ids is not
// sent again: an error that quotes the request, which holds a caller's
// words about Mistral's refusal, and vLLM's refusal, in Mistral's words,
// of a Responses request's call_id, which the client does not write
// (the request sent again would be the same). Before, each was sent a
// second time and refused again. The caller gets the refusal, one
// request.
func TestMistralCallIDsRefusalOfAnotherKind(t *testing.T) {
	serve := func(answer func(body []byte) string) (*httptest.Server, *atomic.Int32) {
		var n atomic.Int32
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			body, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, answer(body))
		}))
		t.Cleanup(ts.Close)
		return ts, &n
	}
	ctx := context.Background()

	quoting, n := serve(func(body []byte) string {
		return `{"error":{"message":"prompt too long: ` + strings.ReplaceAll(string(body), `"`, `'`) + `","type":"invalid_request_error"}}`
	})
	msg := openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ChatCompletionMessageToolCallUnion{{
		ID: "call_PTLP8xhu3uwZk4l3nlnrrJha", Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "get_weather", Arguments: "{}"},
	}}}
	p := weatherTurn("gpt-4.1", &msg)
	p.Messages = append(p.Messages, openai.UserMessage("Mistral said: Tool call id was call_PTLP8xhu3uwZk4l3nlnrrJha but must be a-z, A-Z, 0-9, with a length of 9. Why?"))
	_, err := tokenpace.NewClient(openaiClient(quoting.URL, http.DefaultClient)).New(ctx, p)
	var se *tokenpace.StreamError
	if !errors.As(err, &se) || se.Kind != tokenpace.KindRequest || n.Load() != 1 {
		t.Errorf("an error quoting the request: %v after %d requests; want its 400 after one", err, n.Load())
	}

	vllm, n := serve(func([]byte) string {
		return `{"object":"error","message":"Tool call id was _k2x8f0qa but must be a-z, A-Z, 0-9, with a length of 9.","type":"BadRequestError","param":null,"code":400}`
	})
	_, err = tokenpace.NewClient(openaiClient(vllm.URL, http.DefaultClient)).NewResponse(ctx, responses.ResponseNewParams{
		Model: "mistral-small-3.2", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
			responses.ResponseInputItemParamOfFunctionCall(`{"city":"Paris"}`, "call_k2x8f0qa", "get_weather"),
			{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{CallID: openai.String("call_k2x8f0qa"), Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: openai.String("sunny")}}},
		}},
	})
	if !errors.As(err, &se) || se.Kind != tokenpace.KindRequest || n.Load() != 1 {
		t.Errorf("a Responses request refused for its call_id: %v after %d requests; want its 400 after one", err, n.Load())
	}
}

// A conversation of TGI's or SGLang's, whose calls carry the ids "0",
// "1" (see tgi-toolcall-no-finish), carried on by vLLM serving a Mistral
// model under vLLM's own Mistral chat template, which refuses an id
// shorter than 9 in words of its own ("… with length >= 9! (1)0").
// Before, the caller got that 400: a failed request. The request is now
// sent again with the ids written as 9 letters and digits.
func TestMistralCallIDsVLLMTemplate(t *testing.T) {
	vllm := &idServer{id: "chatcmpl-tool-4f0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d", template: map[string]bool{"mistral-7b-instruct-v0.3": true}}
	c := tokenpace.NewClient(openaiClient(vllm.serve(t).URL, http.DefaultClient))
	tgi := openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ChatCompletionMessageToolCallUnion{{
		ID: "0", Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "get_weather", Arguments: `{"city":"Paris"}`},
	}}}
	s := c.NewStreaming(context.Background(), weatherTurn("mistral-7b-instruct-v0.3", &tgi))
	drain(t, s, 0)
	if want := "Sunny in Paris, from mistral-7b-instruct-v0.3."; s.Err() != nil || s.Text() != want {
		t.Fatalf("%q, Err %v; want %q", s.Text(), s.Err(), want)
	}
	asked := vllm.asked()
	if len(asked) != 2 || asked[0] != "mistral-7b-instruct-v0.3 0,0" {
		t.Fatalf("vLLM was asked %q; want the caller's ids, then the request sent again", asked)
	}
	if ids := strings.Split(strings.TrimPrefix(asked[1], "mistral-7b-instruct-v0.3 "), ","); len(ids) != 2 || ids[0] != ids[1] || !mistralID.MatchString(ids[0]) {
		t.Errorf("vLLM was asked %q again; want the call's id and the tool message's one id of 9 letters and digits", asked[1])
	}
}
