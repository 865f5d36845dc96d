package codec

import "github.com/openai/openai-go/v3"

// Open WebUI's bridge to Ollama.
//
// Open WebUI serves a model of its Ollama connection on its
// OpenAI-compatible /api/chat/completions by making a chat chunk of every
// line of Ollama's /api/chat stream (open-webui/open-webui
// backend/open_webui/utils/response.py,
// convert_streaming_response_ollama_to_openai). A chunk whose line held no
// content, reasoning or tool call gets the finish reason "stop"
// (utils/misc.py, openai_chat_chunk_message_template), and its model is
// the line's, "ollama" when the line names none. The line that ends an
// answer names its model and carries the usage, which the bridge always
// copies. But Ollama reports a failure after its status 200 as a line
// {"error": "..."}, which names no model: the bridge makes of it a last
// chunk with an empty delta, "stop", the model "ollama" and no usage, and
// ends the stream with [DONE], the error's text lost. The answer was cut,
// and bare openai-go takes it for a whole one.

// bridgeModel is the model Open WebUI's bridge names in a chunk made of an
// Ollama line that named none.
const bridgeModel = "ollama"

// droppedOllamaError reports whether c, a chat chunk whose finish
// reasons are read, is the chunk Open WebUI's bridge made of an Ollama
// error line: one choice, finish "stop", an empty delta, the model
// "ollama" and no usage.
func droppedOllamaError(c *openai.ChatCompletionChunk) bool {
	return emptyStop(c) && c.Model == bridgeModel
}

// emptyStop reports whether c is a finish chunk with nothing in it: one
// choice finished "stop" whose delta is empty, and no usage; a bridge
// writes one of its own where its upstream failed (see droppedOllamaError,
// abortedTerminal).
func emptyStop(c *openai.ChatCompletionChunk) bool {
	if len(c.Choices) != 1 || c.Choices[0].FinishReason != "stop" || c.JSON.Usage.Valid() {
		return false
	}
	d := &c.Choices[0].Delta
	return d.Content == "" && len(d.ToolCalls) == 0 && len(d.JSON.ExtraFields) == 0
}
