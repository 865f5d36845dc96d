package codec

import "github.com/openai/openai-go/v3"

// noResponseText is what vMLX writes as an answer's content when its
// model generated no token (jjang-ai/vmlx vmlx_engine/server.py,
// stream_chat_completion's zero-token safeguard): one chunk finished
// "stop" whose content is the whole of it, after no other content, then
// the usage and [DONE]. Without a reasoning parser the engine's empty
// finished output streams first, as a chunk of an empty delta finished
// "stop". Its /v1/responses streams no delta then, and writes the same
// words as the message's text in output_text.done and every done event
// after it (stream_responses_api's display_text).
const noResponseText = "[Model produced no response. Check server logs for details.]"

// dropNoResponse empties the content of chunk c when c is vMLX's
// placeholder for an answer its model never began (see noResponseText),
// and reports whether it did. Read as text, the words would be the
// answer, and a Router would take them for one rather than send the
// request on, as it does an empty answer; the answer is what the model
// made: empty, finished "stop", with its usage. ChatStream asks it only
// while no chunk of the stream held output: after text, the words are
// the model's (a quotation of vMLX's message, a relay that sends it
// apart), and kept. Only a chunk that finishes "stop" pays the content's
// comparison.
func dropNoResponse(c *openai.ChatCompletionChunk) bool {
	if len(c.Choices) != 1 || c.Choices[0].FinishReason != "stop" {
		return false
	}
	ch, rest, ok := contentAfter(c, noResponseText)
	if !ok || rest != "" {
		return false
	}
	ch.Delta.Content = ""
	return true
}

// noResponse reports whether text, the whole text of a Responses
// message of which no delta came, is vMLX's placeholder for an answer
// its model never began (see noResponseText): no text of the answer's,
// which is empty. It runs on a text's done event and on the final event.
func noResponse(text string) bool { return text == noResponseText }
