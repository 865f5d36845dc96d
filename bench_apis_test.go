package tokenpace_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace"
)

// completionStream returns a completions event stream of n text events,
// as vLLM sends them, with a finish event, a usage event and [DONE].
func completionStream(n int) string {
	const head = `data: {"id":"cmpl-1","object":"text_completion","created":1741569952,"model":"qwen2.5-coder-1.5b","choices":[`
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, head+`{"index":0,"text":" word%d","logprobs":null,"finish_reason":null}],"usage":null}`+"\n\n", i)
	}
	b.WriteString(head + `{"index":0,"text":"","logprobs":null,"finish_reason":"length"}],"usage":null}` + "\n\n")
	fmt.Fprintf(&b, head+`],"usage":{"prompt_tokens":19,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n", n, n+19)
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// responseStream returns a Responses event stream of n output_text
// deltas, framed as OpenAI frames them (an event line, then the data),
// from response.created to response.completed with the usage.
func responseStream(n int) string {
	const resp = `"response":{"id":"resp_1","object":"response","created_at":1741569952,"model":"gpt-4.1","output":[],"status":`
	var b strings.Builder
	fmt.Fprintf(&b, "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,%s\"in_progress\"}}\n\n", resp)
	for i := range n {
		fmt.Fprintf(&b, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":%d,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\" word%d\"}\n\n", i+1, i)
	}
	fmt.Fprintf(&b, "event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":%d,%s\"completed\",\"usage\":{\"input_tokens\":19,\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens\":%d,\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":%d}}}\n\n", n+1, resp, n, n+19)
	return b.String()
}

// BenchmarkAPIs reads the same number of output events through each API,
// with bare openai-go and with tokenpace, in one run, from an in-process
// transport (one event per read): the client's own work per event.
func BenchmarkAPIs(b *testing.B) {
	const n = 1024
	client := func(body string) openai.Client {
		return openai.NewClient(option.WithBaseURL("http://in-process.invalid/v1/"), option.WithAPIKey("x"),
			option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: bodyTransport{body}}))
	}
	run := func(b *testing.B, read func() error) {
		b.ReportAllocs()
		for b.Loop() {
			if err := read(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/event")
	}
	chatParams := chat("gpt-4.1", n)
	fimParams := fim("qwen2.5-coder-1.5b", "func f() {", "}")
	respParams := respond("gpt-4.1", n)
	chatBody, fimBody, respBody := sseStream(n), completionStream(n), responseStream(n)
	b.Run("chat/bare", func(b *testing.B) {
		oc := client(chatBody)
		run(b, func() error {
			s := oc.Chat.Completions.NewStreaming(context.Background(), chatParams)
			for s.Next() {
			}
			return s.Err()
		})
	})
	b.Run("chat/tokenpace", func(b *testing.B) {
		c := tokenpace.NewClient(client(chatBody))
		run(b, func() error {
			s := c.NewStreaming(context.Background(), chatParams)
			for s.Next() {
			}
			s.Close()
			return s.Err()
		})
	})
	b.Run("completions/bare", func(b *testing.B) {
		oc := client(fimBody)
		run(b, func() error {
			s := oc.Completions.NewStreaming(context.Background(), fimParams)
			for s.Next() {
			}
			return s.Err()
		})
	})
	b.Run("completions/tokenpace", func(b *testing.B) {
		c := tokenpace.NewClient(client(fimBody))
		run(b, func() error {
			s := c.NewCompletionStreaming(context.Background(), fimParams)
			for s.Next() {
			}
			s.Close()
			return s.Err()
		})
	})
	b.Run("responses/bare", func(b *testing.B) {
		oc := client(respBody)
		run(b, func() error {
			s := oc.Responses.NewStreaming(context.Background(), respParams)
			for s.Next() {
			}
			return s.Err()
		})
	})
	b.Run("responses/tokenpace", func(b *testing.B) {
		c := tokenpace.NewClient(client(respBody))
		run(b, func() error {
			s := c.NewResponseStreaming(context.Background(), respParams)
			for s.Next() {
			}
			s.Close()
			return s.Err()
		})
	})
}
