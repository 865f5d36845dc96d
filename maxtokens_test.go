package tokenpace_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// limitServer answers chat completions, streamed or whole, with one token
// per chunk, as many as limit, read from the request's body, says (-1:
// refuse the request with the error body refusal, status 400), counting
// the requests and keeping the last body in last.
func limitServer(limit func(body map[string]any) int, refusal string, requests *atomic.Int64, last *atomic.Value) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		raw, _ := io.ReadAll(r.Body)
		last.Store(string(raw))
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		n := limit(body)
		if n < 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, refusal)
			return
		}
		finish := "stop"
		if _, ok := body["max_tokens"]; ok {
			finish = "length"
		}
		if stream, _ := body["stream"].(bool); !stream {
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","system_fingerprint":"fp_ollama","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":%q}],"usage":{"prompt_tokens":5,"completion_tokens":%d,"total_tokens":%d}}`,
				strings.Repeat("tok ", n), finish, n, n+5)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for range n {
			_, _ = io.WriteString(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"tok "},"finish_reason":null}]}`+"\n\n")
		}
		_, _ = fmt.Fprintf(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":%q}]}`+"\n\n", finish)
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
	}
}

// intOf returns body's member name as an int, and whether it has one.
func intOf(body map[string]any, name string) (int, bool) {
	v, ok := body[name].(float64)
	return int(v), ok
}

// TestMaxCompletionTokensOnServersThatIgnoreIt checks that a caller's
// max_completion_tokens holds on a server that knows only max_tokens, as
// Ollama's OpenAI endpoint does (ollama/ollama#7125: max_completion_tokens
// 10 answered with 422 tokens): the caller gets what it asked for, no
// more, streamed and whole. Bare openai-go gets the server's whole answer.
func TestMaxCompletionTokensOnServersThatIgnoreIt(t *testing.T) {
	const asked, unlimited = 8, 200
	ollama := func(body map[string]any) int {
		if n, ok := intOf(body, "max_tokens"); ok {
			return n
		}
		return unlimited // num_predict -1: until the model stops
	}
	params := openai.ChatCompletionNewParams{
		Model:               "m",
		Messages:            []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me a story.")},
		MaxCompletionTokens: openai.Int(asked),
	}
	synctest.Test(t, func(t *testing.T) {
		var requests atomic.Int64
		var last atomic.Value
		url, hc := serve(t, limitServer(ollama, "", &requests, &last))
		oc := openaiClient(url, hc)

		bare := oc.Chat.Completions.NewStreaming(context.Background(), params)
		chunks := 0
		for bare.Next() {
			if len(bare.Current().Choices) > 0 && bare.Current().Choices[0].Delta.Content != "" {
				chunks++
			}
		}
		_ = bare.Close()
		if chunks != unlimited {
			t.Fatalf("bare openai-go: %d chunks, want the server's %d (the server this test stands for)", chunks, unlimited)
		}

		c := tokenpace.NewClient(oc)
		s := c.NewStreaming(context.Background(), params)
		got := drain(t, s, 0)
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v", err)
		}
		if tm := s.Timing(); tm.OutputTokens != asked || tm.FinishReason != "length" || s.Text() != strings.Repeat("tok ", asked) {
			t.Errorf("streamed: %d chunks, %d output tokens, finish %q, text %q; want %d tokens, length", len(got), tm.OutputTokens, tm.FinishReason, s.Text(), asked)
		}
		var sent map[string]any
		_ = json.Unmarshal([]byte(last.Load().(string)), &sent)
		if n, _ := intOf(sent, "max_completion_tokens"); n != asked {
			t.Errorf("sent max_completion_tokens %v, want the caller's %d kept", sent["max_completion_tokens"], asked)
		}

		whole, err := c.New(context.Background(), params)
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if whole.Usage.CompletionTokens != asked || whole.Choices[0].Message.Content != strings.Repeat("tok ", asked) {
			t.Errorf("whole: %d tokens, %q; want %d", whole.Usage.CompletionTokens, whole.Choices[0].Message.Content, asked)
		}
	})
}

// TestMaxTokensRefused checks the other side: a server that refuses
// max_tokens, as OpenAI's newer models do, gets the request again without
// it at once, and the next request without it from the start; the caller
// sees one answer within its limit. An error that names max_tokens for
// another reason (vLLM's limit over the context) reaches the caller as
// the server gives it to the caller's own request, after one more
// request, and the server is sent no max_tokens from then on.
func TestMaxTokensRefused(t *testing.T) {
	const asked = 6
	params := openai.ChatCompletionNewParams{
		Model:               "m",
		Messages:            []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me a story.")},
		MaxCompletionTokens: openai.Int(asked),
	}
	t.Run("refused", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			newer := func(body map[string]any) int {
				if _, ok := body["max_tokens"]; ok {
					return -1
				}
				n, _ := intOf(body, "max_completion_tokens")
				return n
			}
			var requests atomic.Int64
			var last atomic.Value
			url, hc := serve(t, limitServer(newer, `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`, &requests, &last))
			c := tokenpace.NewClient(openaiClient(url, hc))
			for i, want := range []int64{2, 1} {
				s := c.NewStreaming(context.Background(), params)
				drain(t, s, 0)
				if err := s.Err(); err != nil || s.Text() != strings.Repeat("tok ", asked) {
					t.Fatalf("call %d: Err() = %v, text %q", i+1, err, s.Text())
				}
				if got := int64(len(s.Timing().HTTP)); got != want {
					t.Errorf("call %d: %d HTTP requests, want %d", i+1, got, want)
				}
			}
			if requests.Load() != 3 {
				t.Errorf("server saw %d requests, want 3", requests.Load())
			}
			// The same, whole, on a client that has learnt nothing yet.
			var tm *tokenpace.Timing
			res, err := tokenpace.NewClient(openaiClient(url, hc)).New(context.Background(), params, tokenpace.WithTimingInto(&tm))
			if err != nil || res.Choices[0].Message.Content != strings.Repeat("tok ", asked) || len(tm.HTTP) != 2 {
				t.Errorf("New: %v, %v, %d HTTP requests; want the answer after 2", res, err, len(tm.HTTP))
			}
		})
	})
	t.Run("too large", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var requests atomic.Int64
			var last atomic.Value
			url, hc := serve(t, limitServer(func(map[string]any) int { return -1 },
				`{"object":"error","message":"'max_tokens' or 'max_completion_tokens' is too large: 6. This model's maximum context length is 8 tokens and your request has 5 input tokens (6 > 8 - 5).","type":"BadRequestError","param":null,"code":400}`, &requests, &last))
			c := tokenpace.NewClient(openaiClient(url, hc))
			s := c.NewStreaming(context.Background(), params)
			drain(t, s, 0)
			var apiErr *openai.Error
			if !errors.As(s.Err(), &apiErr) || apiErr.StatusCode != 400 {
				t.Fatalf("Err() = %v, want the server's 400", s.Err())
			}
			if requests.Load() != 2 || strings.Contains(last.Load().(string), `"max_tokens"`) {
				t.Errorf("server saw %d requests, the last %s; want 2, the last as the caller wrote it", requests.Load(), last.Load())
			}
		})
	})
}

// TestMaxTokensNotSentToOpenAI checks that OpenAI's own hosts, which read
// max_completion_tokens for every model, get the request as the caller
// wrote it: no max_tokens, and no refusal's round trip.
func TestMaxTokensNotSentToOpenAI(t *testing.T) {
	var bodies []string
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, r.URL.Host+" "+string(b))
		if !strings.Contains(string(b), `"stream":true`) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Request: r,
				Body: io.NopCloser(strings.NewReader(`{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`))}, nil
		}
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Request: r,
			Body: io.NopCloser(strings.NewReader(`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"))}, nil
	})
	for _, base := range []string{"https://api.openai.com/v1/", "https://my-resource.openai.azure.com/openai/v1/", "http://localhost:11434/v1/"} {
		oc := openai.NewClient(option.WithBaseURL(base), option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: rt}))
		p := openai.ChatCompletionNewParams{
			Model:               "m",
			Messages:            []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
			MaxCompletionTokens: openai.Int(5),
		}
		s := tokenpace.NewClient(oc).NewStreaming(context.Background(), p)
		for s.Next() {
		}
		_ = s.Close()
		if _, err := tokenpace.NewClient(oc).New(context.Background(), p); err != nil {
			t.Errorf("New: %v", err)
		}
	}
	want := []bool{false, false, false, false, true, true}
	if len(bodies) != len(want) {
		t.Fatalf("%d requests, want %d", len(bodies), len(want))
	}
	for i, b := range bodies {
		if got := strings.Contains(b, `"max_tokens":5`); got != want[i] || !strings.Contains(b, `"max_completion_tokens":5`) {
			t.Errorf("request %s: max_tokens sent %v, want %v", b, got, want[i])
		}
	}
}

// roundTripFunc is an http.RoundTripper that is a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestMaxCompletionTokensRefused: Mistral's API forbids
// max_completion_tokens, answering 422 with FastAPI's list of validation
// errors (extra_forbidden, loc body.max_completion_tokens:
// Gitlawb/openclaude#739), and reads max_tokens. The client sends the
// caller's limit as max_tokens beside it, so the request is sent again at
// once without the field the server forbids, the limit held by max_tokens,
// and the next request goes without it from the start; the caller sees one
// answer within its limit, where bare openai-go fails with the 422.
func TestMaxCompletionTokensRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const asked = 5
		params := openai.ChatCompletionNewParams{
			Model:               "mistral-small-latest",
			Messages:            []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me a story.")},
			MaxCompletionTokens: openai.Int(asked),
		}
		mistral := func(body map[string]any) int {
			if _, ok := body["max_completion_tokens"]; ok {
				return -1
			}
			n, _ := intOf(body, "max_tokens")
			return n
		}
		var requests atomic.Int64
		var last atomic.Value
		url, hc := serve(t, limitServer(mistral, `{"detail":[{"type":"extra_forbidden","loc":["body","max_completion_tokens"],"msg":"Extra inputs are not permitted","input":5}]}`, &requests, &last))
		c := tokenpace.NewClient(openaiClient(url, hc))
		for i, want := range []int{2, 1} {
			s := c.NewStreaming(context.Background(), params)
			drain(t, s, 0)
			if err := s.Err(); err != nil || s.Text() != strings.Repeat("tok ", asked) {
				t.Fatalf("call %d: Err() = %v, text %q; want the answer within the limit", i+1, err, s.Text())
			}
			if got := len(s.Timing().HTTP); got != want {
				t.Errorf("call %d: %d HTTP requests, want %d", i+1, got, want)
			}
			if b := last.Load().(string); strings.Contains(b, "max_completion_tokens") || !strings.Contains(b, `"max_tokens":5`) {
				t.Errorf("call %d: the server got %s; want max_tokens 5 and no max_completion_tokens", i+1, b)
			}
		}
		var tm *tokenpace.Timing
		res, err := tokenpace.NewClient(openaiClient(url, hc)).New(context.Background(), params, tokenpace.WithTimingInto(&tm))
		if err != nil || res.Choices[0].Message.Content != strings.Repeat("tok ", asked) || len(tm.HTTP) != 2 {
			t.Errorf("New: %v, %v; want the answer after 2 requests", res, err)
		}
	})
}
