package codec

import "github.com/openai/openai-go/v3"

// LlamaEdge's api-server, whose chat answers never finish.
//
// LlamaEdge's llama-api-server (LlamaEdge/LlamaEdge, 0.28.1, November
// 2025: crates/llama-core/src/chat/chat_completions.rs, compute_stream
// and chat_stream_for_tool) writes every chunk with the role on its
// delta, logprobs and finish_reason null, and the system_fingerprint
// "fp_44709d6fcb" whatever the model. At the end of the sequence it sends
// no finish reason: the usage chunk, when asked for, then [DONE]; a
// request with tools is answered by one chunk holding the whole call,
// finish_reason null, the usage chunk (asked or not) and [DONE]. Only a
// context that filled says "length". When its backend fails mid-answer
// the body is cut (hyper aborts it) and no [DONE] comes. Read as any
// other stream, every whole answer was a cut one (KindTruncated "no
// finish_reason"), and a Router carried on an answer that was whole.

// llamaEdgeFingerprint is the system_fingerprint LlamaEdge writes on
// every chunk, OpenAI's own example in its API reference.
const llamaEdgeFingerprint = "fp_44709d6fcb"

// llamaEdgeChunk reports whether c is in the shape of LlamaEdge's chunks:
// its fingerprint, no service_tier, and the assistant's role on every
// delta.
func llamaEdgeChunk(c *openai.ChatCompletionChunk) bool {
	//lint:ignore SA1019 LlamaEdge still sends it: its value tells its chunks
	if c.SystemFingerprint != llamaEdgeFingerprint || c.JSON.ServiceTier.Valid() {
		return false
	}
	for i := range c.Choices {
		if c.Choices[i].Delta.Role != "assistant" {
			return false
		}
	}
	return true
}
