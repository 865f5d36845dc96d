package codec

import "github.com/openai/openai-go/v3"

// chat2APIModeration is the refusal chat2api (lanqian528/chat2api) writes
// as the answer when ChatGPT's web backend sends a moderation event: one
// delta of the role and this text, finish_reason "stop", then [DONE]
// (chatgpt/chatFormat.py, moderation_message and stream_response;
// lanqian528/chat2api#229, the same words as a whole answer).
const chat2APIModeration = "I'm sorry, I cannot provide or engage in any content related to pornography, violence, or any unethical material. If you have any other questions or need assistance, please feel free to let me know. I'll do my best to provide support and assistance."

// chat2APIFiltered reads chunk c, one that carries a finish reason, as
// chat2api means it: its own refusal after a moderation event, finished
// "stop", is a filtered answer, finish "content_filter"; the refusal
// stays the text, as chat2api wrote it for the user. Read as "stop", an
// answer the platform's moderation ended would be taken for the model's.
func chat2APIFiltered(c *openai.ChatCompletionChunk) {
	ch := &c.Choices[0]
	if ch.FinishReason == "stop" && ch.Delta.Role == "assistant" && ch.Delta.Content == chat2APIModeration {
		ch.FinishReason = "content_filter"
	}
}
