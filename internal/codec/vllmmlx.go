package codec

import (
	"strings"

	"github.com/openai/openai-go/v3"
)

// vllm-mlx 0.4.0, whose answers that end at the model's end of sequence
// never finish.
//
// In vllm-mlx 0.4.0 and 0.4.0rc1 (waybarrios/vllm-mlx#628, fixed by #629
// in 0.4.1) mlx-lm's stream_generate never marks its last token finished
// on a natural stop; SimpleEngine's epilogue then yields a close-out
// output finished with finish_reason None, which stream_chat_completion
// (vllm_mlx/server.py) streams as a chunk of an empty delta, finish_reason
// null and the usage (it adds the usage to a finished output's chunk),
// then the include_usage chunk and [DONE]. An answer cut at max_tokens
// finishes "length" as it should; a failed one gets [DONE] alone
// (_ensure_sse_terminal), with no close-out, and stays a cut one. Read as
// any other stream, every answer that ended naturally was a cut one
// (KindTruncated "no finish_reason"), and a Router carried on an answer
// that was whole.

// vllmMLXChunk reports whether c is in the shape of vllm-mlx 0.4.0's
// chunks (pydantic's ChatCompletionChunk, vllm_mlx/api/models.py): an id
// "chatcmpl-" and 8 lower-case hexadecimal digits, a created member, a
// usage member (null but on the usage chunk and the close-out), nothing
// else beside OpenAI's members, and choices of index, delta and
// finish_reason alone, with no logprobs member.
func vllmMLXChunk(c *openai.ChatCompletionChunk) bool {
	id, ok := strings.CutPrefix(c.ID, "chatcmpl-")
	if !ok || len(id) != 8 || !lowerHex(id) || c.Object != "chat.completion.chunk" ||
		c.JSON.Created.Raw() == "" || c.JSON.Usage.Raw() == "" || c.JSON.SystemFingerprint.Raw() != "" ||
		c.JSON.ServiceTier.Raw() != "" || len(c.JSON.ExtraFields) != 0 {
		return false
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.JSON.Logprobs.Raw() != "" || ch.JSON.FinishReason.Raw() == "" || len(ch.JSON.ExtraFields) != 0 {
			return false
		}
	}
	return true
}

// vllmMLXCloseOut reports whether c is vllm-mlx 0.4.0's close-out chunk
// of an answer that ended naturally: one choice of an empty delta and a
// null finish_reason beside the usage, which only a finished output's
// chunk carries.
func vllmMLXCloseOut(c *openai.ChatCompletionChunk) bool {
	if len(c.Choices) != 1 || !strings.HasPrefix(c.JSON.Usage.Raw(), "{") {
		return false
	}
	ch := &c.Choices[0]
	return ch.JSON.FinishReason.Raw() == "null" && ch.JSON.Delta.Raw() == "{}"
}

// lowerHex reports whether s is made of lower-case hexadecimal digits.
func lowerHex(s string) bool {
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}
