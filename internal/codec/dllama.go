package codec

import "github.com/openai/openai-go/v3"

// distributed-llama's opening of a reasoning answer.
//
// distributed-llama's dllama-api (b4rtaz/distributed-llama,
// src/dllama-api.cpp, ApiServer::complete) writes its 200 headers and
// then, before the prompt is evaluated across its nodes, the chat
// template's own opening of the answer as the first content chunk: the
// deepSeek3 template (DeepSeek-R1 distills) ends its prompt with
// "<think>\n", which it also sends to the caller (src/tokenizer.cpp,
// ChatTemplateGenerator::generate, publicPrompt). That chunk is the
// prompt's, not the model's: counted as output, it made the first token
// arrive before the prefill, whatever the prefill took. Its chunks are
// always id "cmpl-c0", model "Distributed Model" (src/api-types.hpp,
// ChatCompletionChunk).

// dllamaID is the id of every chunk dllama-api sends.
const dllamaID = "cmpl-c0"

// dllamaPrefill reports whether c, the first chunk of a stream, is
// dllama-api's chunk of the chat template's opening of the answer: the
// caller keeps its text, but it is no generated output. dllama-api
// writes it once, before any token, so only a stream's first chunk is
// asked (see ChatStream.Decode): the chunks after it, the model's own
// "<think>\n" among them, are output, and cost no comparison.
func dllamaPrefill(c *openai.ChatCompletionChunk) bool {
	if c.ID != dllamaID || c.Model != "Distributed Model" || len(c.Choices) != 1 {
		return false
	}
	return c.Choices[0].Delta.Content == "<think>\n"
}
