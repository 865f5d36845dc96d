package tokenpace_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tokenpace/tokenpace"
)

// reasoningCallStream returns an event stream of n chunks as a thinking
// model's server streams a turn that calls a tool: half reasoning in
// "reasoning", after beside on each (vLLM: nothing; OVHcloud: a null
// reasoning_content), half the call's arguments in pieces, then the
// finish chunk.
func reasoningCallStream(n int, beside string) string {
	var sb strings.Builder
	chunk := func(delta, finish string) {
		fmt.Fprintf(&sb, `data: {"id":"c","object":"chat.completion.chunk","created":1788000000,"model":"kimi","choices":[{"index":0,"delta":{%s},"finish_reason":%s}]}`+"\n\n", delta, finish)
	}
	for i := range n / 2 {
		chunk(fmt.Sprintf(`%s"reasoning":"step %d "`, beside, i), "null")
	}
	chunk(`"tool_calls":[{"index":0,"id":"functions.f:0","type":"function","function":{"name":"f","arguments":"{\"a\":\""}}]`, "null")
	for range n/2 - 2 {
		chunk(`"tool_calls":[{"index":0,"function":{"arguments":"xy"}}]`, "null")
	}
	chunk(`"tool_calls":[{"index":0,"function":{"arguments":"\"}"}}]`, `"tool_calls"`)
	sb.WriteString("data: [DONE]\n\n")
	return sb.String()
}

// BenchmarkStreamReasoningCall reads a thinking model's turn that calls a
// tool, whose reasoning and first call's arguments the client keeps to
// give back: the difference between two chunk counts isolates the
// per-chunk cost of reading them.
func BenchmarkStreamReasoningCall(b *testing.B) {
	for _, shape := range []struct{ name, beside string }{{"vllm", ""}, {"ovhcloud", `"reasoning_content":null,`}} {
		for _, n := range []int{64, 1024} {
			benchReasoningCall(b, fmt.Sprintf("%s/chunks=%d", shape.name, n), n, reasoningCallStream(n, shape.beside))
		}
	}
}

// benchReasoningCall reads body, n chunks, as the sub-benchmark name.
func benchReasoningCall(b *testing.B, name string, n int, body string) {
	params := chat("kimi", n)
	b.Run(name, func(b *testing.B) {
		c := tokenpace.NewClient(sseServer(b, body))
		b.ReportAllocs()
		for b.Loop() {
			s := c.NewStreaming(context.Background(), params)
			for s.Next() {
				_ = s.Current()
			}
			s.Close()
			if err := s.Err(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/chunk")
	})
}
