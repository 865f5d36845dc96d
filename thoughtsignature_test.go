package tokenpace_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/internal/servertest"
)

// geminiSignature is the thought signature the Gemini emulator puts on its
// first call, as Gemini 3 signs only the first of parallel calls.
const geminiSignature = "CpwBAdHtim9Xk3sQ"

// agentTurn is what the emulators read of a request: the calls of its
// assistant messages, with what Gemini (extra_content), OpenRouter
// (reasoning_details) and DeepSeek (reasoning_content) want back.
type agentTurn struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role      string `json:"role"`
		ToolCalls []struct {
			ID    string          `json:"id"`
			Extra json.RawMessage `json:"extra_content"`
		} `json:"tool_calls"`
		Details []struct {
			Type, Text, Data, ID string
		} `json:"reasoning_details"`
		Reasoning *string `json:"reasoning_content"`
		Reasoned  *string `json:"reasoning"` // vLLM's name since v0.16
	} `json:"messages"`
}

// emulator starts a loopback server that answers each request with
// answer, given the request and what it read of it.
func emulator(t *testing.T, answer func(http.ResponseWriter, *http.Request, agentTurn)) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var turn agentTurn
		if err := json.NewDecoder(r.Body).Decode(&turn); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		answer(w, r, turn)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// geminiServer answers as Gemini 3's OpenAI-compatible endpoint does
// (ai.google.dev/gemini-api/docs/thought-signatures): a first turn calls
// get_weather twice, the first call with extra_content's thought
// signature; a later request whose assistant message names the first
// call without that signature is refused with 400, and one that carries
// it back is answered with text. The calls come whole, without an index,
// as Gemini streams them (testdata/conformance/gemini-toolcalls-no-index.jsonl).
func geminiServer(t *testing.T) *httptest.Server {
	return emulator(t, func(w http.ResponseWriter, r *http.Request, turn agentTurn) {
		answered := false
		for _, m := range turn.Messages {
			for i, c := range m.ToolCalls {
				answered = true
				var x struct {
					Google struct {
						Sig string `json:"thought_signature"`
					} `json:"google"`
				}
				_ = json.Unmarshal(c.Extra, &x)
				if want := map[bool]string{true: geminiSignature}[i == 0]; x.Google.Sig != want {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusBadRequest)
					fmt.Fprintf(w, `[{"error":{"code":400,"message":"Function call is missing a thought_signature in functionCall parts. Additional data, function call default_api:get_weather, position %d.","status":"INVALID_ARGUMENT"}}]`, i+2)
					return
				}
			}
		}
		calls := `"tool_calls":[{"extra_content":{"google":{"thought_signature":"` + geminiSignature + `"}},"function":{"arguments":"{\"city\":\"Paris\"}","name":"get_weather"},"id":"call_1","type":"function"},{"function":{"arguments":"{\"city\":\"Berlin\"}","name":"get_weather"},"id":"call_2","type":"function"}]`
		content := `"content":"Sunny in Paris, rain in Berlin."`
		if !answered {
			content = calls
		}
		if !turn.Stream {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"gm-1","object":"chat.completion","created":1775000000,"model":"gemini-3-flash-preview","choices":[{"index":0,"message":{"role":"assistant",%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":61,"completion_tokens":22,"total_tokens":83}}`, content)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta, finish string) {
			fmt.Fprintf(w, "data: {\"id\":\"gm-1\",\"object\":\"chat.completion.chunk\",\"created\":1775000000,\"model\":\"gemini-3-flash-preview\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"%s}%s}]}\n\n", delta, finish)
		}
		chunk(","+content, "")
		chunk("", `,"finish_reason":"stop"`)
		fmt.Fprint(w, "data: [DONE]\n\n")
	})
}

// weatherTurns returns the first turn's params, and the second turn's once
// the first answered with msg: the tool agent's conversation, built as
// openai-go builds it (msg.ToParam()).
func weatherTurns(msg *openai.ChatCompletionMessage) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{
		Model:    "gemini-3-flash-preview",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris and Berlin?")},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
			Name: "get_weather", Parameters: openai.FunctionParameters{"type": "object"},
		})},
	}
	if msg != nil {
		p.Messages = append(p.Messages, msg.ToParam())
		for _, c := range msg.ToolCalls {
			p.Messages = append(p.Messages, openai.ToolMessage("sunny", c.ID))
		}
	}
	return p
}

// TestThoughtSignatureGivenBack checks the tool agent's conversation on
// Gemini 3, over loopback HTTP: the assistant turn built from the first
// answer (streamed or not, through a Client or a Router) with openai-go's
// ToParam, which drops the calls' extra_content, gets its thought
// signature back from the client, and the second request is answered;
// the same conversation through openai-go alone is refused with 400.
func TestThoughtSignatureGivenBack(t *testing.T) {
	ts := geminiServer(t)
	// Each conversation has a client of its own: what one kept must not
	// answer for another.
	client := func() *tokenpace.Client { return tokenpace.NewClient(openaiClient(ts.URL, ts.Client())) }
	r, err := tokenpace.NewRouter(client(), tokenpace.Policy{}, tokenpace.Route{Name: "gemini"})
	if err != nil {
		t.Fatal(err)
	}
	const answer = "Sunny in Paris, rain in Berlin."
	t.Run("streamed", func(t *testing.T) { streamedTurns(t, client().NewStreaming, 2, answer) })
	t.Run("whole", func(t *testing.T) { wholeTurns(t, client(), answer) })
	t.Run("router", func(t *testing.T) { streamedTurns(t, r.NewStreaming, 2, answer) })
	t.Run("openai-go alone", func(t *testing.T) { refusedAlone(t, ts) })
}

// streamFunc is NewStreaming of a Client or a Router.
type streamFunc func(context.Context, openai.ChatCompletionNewParams, ...option.RequestOption) *tokenpace.Stream[openai.ChatCompletionChunk]

// streamedTurns streams the first turn, which must make calls calls, and
// the second, built from the first with ToParam, which must answer want.
func streamedTurns(t *testing.T, stream streamFunc, calls int, want string) {
	t.Helper()
	ctx := context.Background()
	s := stream(ctx, weatherTurns(nil))
	drain(t, s, 0)
	msg := s.Accumulated().Choices[0].Message
	if len(msg.ToolCalls) != calls {
		t.Fatalf("first turn: %d calls (Err %v), want %d", len(msg.ToolCalls), s.Err(), calls)
	}
	s2 := stream(ctx, weatherTurns(&msg))
	drain(t, s2, 0)
	if err := s2.Err(); err != nil || s2.Text() != want {
		t.Fatalf("second turn: Text() = %q, Err() = %v, want %q", s2.Text(), err, want)
	}
}

// wholeTurns is streamedTurns for non-streaming calls.
func wholeTurns(t *testing.T, c *tokenpace.Client, want string) {
	t.Helper()
	ctx := context.Background()
	res, err := c.New(ctx, weatherTurns(nil))
	if err != nil {
		t.Fatal(err)
	}
	res2, err := c.New(ctx, weatherTurns(&res.Choices[0].Message))
	if err != nil || res2.Choices[0].Message.Content != want {
		t.Fatalf("second turn: %v, want %q", err, want)
	}
}

// refusedAlone checks that ts refuses the second turn with 400 when the
// conversation goes through openai-go alone: the emulator is as strict as
// the server it stands for.
func refusedAlone(t *testing.T, ts *httptest.Server) {
	t.Helper()
	ctx := context.Background()
	oc := openaiClient(ts.URL, ts.Client())
	res, err := oc.Chat.Completions.New(ctx, weatherTurns(nil))
	if err != nil {
		t.Fatal(err)
	}
	_, err = oc.Chat.Completions.New(ctx, weatherTurns(&res.Choices[0].Message))
	var oe *openai.Error
	if !errorsAs(err, &oe) || oe.StatusCode != http.StatusBadRequest {
		t.Fatalf("second turn through openai-go alone: %v, want the 400 that the client saves its caller from", err)
	}
}

// TestThoughtSignatureStaysWithItsServer checks that a signature goes back
// only to the server that sent it: the same conversation carried on at
// another server (a fallback of another vendor, which may refuse a field
// it does not know) is sent as the caller built it.
func TestThoughtSignatureStaysWithItsServer(t *testing.T) {
	gem := geminiServer(t)
	var got []byte
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"o-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(other.Close)
	ctx := context.Background()
	c := tokenpace.NewClient(openaiClient(gem.URL, gem.Client()))
	s := c.NewStreaming(ctx, weatherTurns(nil))
	drain(t, s, 0)
	msg := s.Accumulated().Choices[0].Message
	s2 := c.NewStreaming(ctx, weatherTurns(&msg), option.WithBaseURL(other.URL))
	drain(t, s2, 0)
	if err := s2.Err(); err != nil || s2.Text() != "ok" {
		t.Fatalf("other server: Text() = %q, Err() = %v", s2.Text(), err)
	}
	if strings.Contains(string(got), "extra_content") || !strings.Contains(string(got), `"call_1"`) {
		t.Errorf("request to the other server = %s, want the caller's calls without extra_content", got)
	}
}

// openRouterServer answers as OpenRouter does for Gemini 3
// (openrouter.ai/docs/guides/best-practices/reasoning-tokens, "preserving
// reasoning blocks"): a first turn streams its reasoning_details in pieces
// (the thinking's text, then the call's signature as a reasoning.encrypted
// item) and calls get_weather; a later request whose assistant message
// makes that call without those details is refused with 400. A request
// with the header X-Test-Done: none gets its stream without [DONE].
func openRouterServer(t *testing.T) *httptest.Server {
	return emulator(t, func(w http.ResponseWriter, r *http.Request, turn agentTurn) {
		answered := false
		for _, m := range turn.Messages {
			if len(m.ToolCalls) == 0 {
				continue
			}
			answered = true
			ok := len(m.Details) == 2 && m.Details[0].Text == "Let me check the weather." &&
				m.Details[1].Type == "reasoning.encrypted" && m.Details[1].Data == geminiSignature && m.Details[1].ID == "call_1"
			if !ok {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"Gemini models require OpenRouter reasoning details to be preserved in each request.","provider_name":"Google AI Studio"}}}`)
				return
			}
		}
		call := `"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]`
		if !turn.Stream {
			w.Header().Set("Content-Type", "application/json")
			msg := `"content":"Sunny in Paris."`
			if !answered {
				msg = `"content":null,` + call + `,"reasoning_details":[{"type":"reasoning.text","text":"Let me check the weather.","format":"google-gemini-v1","index":0},{"type":"reasoning.encrypted","data":"` + geminiSignature + `","id":"call_1","format":"google-gemini-v1","index":1}]`
			}
			fmt.Fprintf(w, `{"id":"gen-1","object":"chat.completion","created":1,"model":"google/gemini-3-flash-preview","choices":[{"index":0,"message":{"role":"assistant",%s},"finish_reason":"stop"}]}`, msg)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta, finish string) {
			fmt.Fprintf(w, "data: {\"id\":\"gen-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"google/gemini-3-flash-preview\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"%s}%s}]}\n\n", delta, finish)
		}
		if answered {
			chunk(`,"content":"Sunny in Paris."`, "")
		} else {
			chunk(`,"content":"","reasoning_details":[{"type":"reasoning.text","text":"Let me check ","format":"google-gemini-v1","index":0}]`, "")
			chunk(`,"content":"","reasoning_details":[{"type":"reasoning.text","text":"the weather.","format":"google-gemini-v1","index":0}]`, "")
			chunk(`,"content":null,`+call+`,"reasoning_details":[{"type":"reasoning.encrypted","data":"`+geminiSignature+`","id":"call_1","format":"google-gemini-v1","index":1}]`, "")
		}
		chunk("", `,"finish_reason":"stop"`)
		if r.Header.Get("X-Test-Done") != "none" {
			fmt.Fprint(w, "data: [DONE]\n\n") // some servers end without it
		}
	})
}

// TestReasoningDetailsGivenBack checks the tool agent's conversation on
// OpenRouter: the assistant turn built with ToParam, which drops
// reasoning_details, gets the details back (the streamed pieces added up,
// also from a stream that ends without [DONE]) and the second request is
// answered; through openai-go alone it is
// refused with 400.
func TestReasoningDetailsGivenBack(t *testing.T) {
	ts := openRouterServer(t)
	client := func() *tokenpace.Client { return tokenpace.NewClient(openaiClient(ts.URL, ts.Client())) }
	t.Run("streamed", func(t *testing.T) { streamedTurns(t, client().NewStreaming, 1, "Sunny in Paris.") })
	t.Run("streamed without [DONE]", func(t *testing.T) {
		c := client()
		streamedTurns(t, func(ctx context.Context, p openai.ChatCompletionNewParams, opts ...option.RequestOption) *tokenpace.Stream[openai.ChatCompletionChunk] {
			return c.NewStreaming(ctx, p, append(opts, option.WithHeader("X-Test-Done", "none"))...)
		}, 1, "Sunny in Paris.")
	})
	t.Run("whole", func(t *testing.T) { wholeTurns(t, client(), "Sunny in Paris.") })
	t.Run("openai-go alone", func(t *testing.T) { refusedAlone(t, ts) })
}

// TestThoughtSignatureSharedBodyReader checks that a request to a server
// with kept calls reaches it whole, once, when a middleware of the
// caller's made its body one shared reader that GetBody rewinds (as
// openai-go does for a *bytes.Reader body), which the client drains when
// it looks for calls to give back.
func TestThoughtSignatureSharedBodyReader(t *testing.T) {
	ts := geminiServer(t)
	shared := option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		r := bytes.NewReader(b)
		req.Body, req.ContentLength = io.NopCloser(r), int64(len(b))
		req.GetBody = func() (io.ReadCloser, error) {
			_, err := r.Seek(0, io.SeekStart)
			return io.NopCloser(r), err
		}
		return next(req)
	})
	c := tokenpace.NewClient(openaiClient(ts.URL, ts.Client()))
	ctx := context.Background()
	for i := range 2 {
		var tm *tokenpace.Timing
		res, err := c.New(ctx, weatherTurns(nil), shared, tokenpace.WithTimingInto(&tm))
		if err != nil || len(res.Choices[0].Message.ToolCalls) != 2 {
			t.Fatalf("request %d: %v, want the two calls", i, err)
		}
		if len(tm.HTTP) != 1 || tm.HTTP[0].Err != nil {
			t.Errorf("request %d: HTTP requests %+v, want one, answered the first time", i, tm.HTTP)
		}
	}
}

// TestThoughtSignatureServerThatCloses checks the conversation on a server
// that closes every connection after a response without saying so (see
// servertest.Closing): the second turn meets the close on the reused
// connection and is sent again, and the request sent again carries the
// signature too.
func TestThoughtSignatureServerThatCloses(t *testing.T) {
	base := "http://" + servertest.Closing(t, func(req *http.Request) (string, string) {
		var turn agentTurn
		_ = json.NewDecoder(req.Body).Decode(&turn)
		delta := `"tool_calls":[{"extra_content":{"google":{"thought_signature":"` + geminiSignature + `"}},"function":{"arguments":"{}","name":"get_weather"},"id":"call_1","type":"function"}]`
		for _, m := range turn.Messages {
			for _, c := range m.ToolCalls {
				delta = `"content":"unsigned"`
				if strings.Contains(string(c.Extra), geminiSignature) {
					delta = `"content":"signed"`
				}
			}
		}
		return "text/event-stream", `data: {"id":"gm-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant",` + delta + `},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	})
	c := tokenpace.NewClient(openaiClient(base, http.DefaultClient))
	ctx := context.Background()
	s := c.NewStreaming(ctx, weatherTurns(nil))
	drain(t, s, 0)
	msg := s.Accumulated().Choices[0].Message
	s2 := c.NewStreaming(ctx, weatherTurns(&msg))
	drain(t, s2, 0)
	if err := s2.Err(); err != nil || s2.Text() != "signed" {
		t.Fatalf("second turn: Text() = %q, Err() = %v, want the signed call's answer", s2.Text(), err)
	}
	if tm := s2.Timing(); len(tm.HTTP) < 2 {
		t.Errorf("second turn: %d HTTP requests, want the close met and the request sent again", len(tm.HTTP))
	}
}
