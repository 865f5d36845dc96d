package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// BenchmarkDecodeChunk decodes one content chunk of chat: as OpenAI sends
// it, and as vLLM does (an extra field on the choice, which the usage
// lookup of a choice reads).
func BenchmarkDecodeChunk(b *testing.B) {
	req := Chat(openai.ChatCompletionNewParams{}, true)
	for _, bc := range []struct{ name, data string }{
		{"openai", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":" hello"},"logprobs":null,"finish_reason":null}],"usage":null}`},
		{"vllm", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" hello"},"logprobs":null,"finish_reason":null,"stop_reason":null}]}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			data := []byte(bc.data)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := req.Decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeResponseDelta decodes one output_text.delta of a
// Responses stream alone (Decode) and in order (ResponseStream, which
// keeps the length and hash of the item's text and of the stream's).
func BenchmarkDecodeResponseDelta(b *testing.B) {
	req := Response(responses.ResponseNewParams{})
	data := []byte(`{"type":"response.output_text.delta","sequence_number":7,"item_id":"msg_1","output_index":0,"content_index":0,"delta":" hello","logprobs":[],"obfuscation":"pQ"}`)
	for _, bc := range []struct {
		name string
		dec  Decoder
	}{{"alone", req}, {"in-order", DecoderFor(req)}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.dec.Decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
