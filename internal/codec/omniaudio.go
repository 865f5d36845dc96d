package codec

import (
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// modalityField is the field of a chunk in which vLLM-Omni says what its
// choices carry: "text", or "audio" for the spoken answer.
const modalityField = "modality"

// omniAudio makes the content of c's deltas their audio data when c says
// its modality is audio. vLLM-Omni, serving an omni model (Qwen2.5-Omni,
// Qwen3-Omni) whose output modalities are text and audio, streams the
// text as vLLM does, then, once the text has its finish reason, the whole
// spoken answer as one more chunk: the delta's role and, as its
// `content`, the base64 WAV, beside a top-level "modality":"audio" and
// finish_reason "stop" again (vllm-project/vllm-omni
// vllm_omni/entrypoints/openai/serving_chat.py,
// chat_completion_stream_generator and _create_audio_choice with
// stream=True). Read as text, the audio's base64 would follow the answer
// in the caller's text; as audio data it is the accumulated message's
// audio, as OpenAI's own audio deltas are. A chunk without extra fields
// costs one length check; one with fields of its own (OpenRouter's
// provider, llama.cpp's timings, Groq's x_groq) one map look-up more.
func omniAudio(c *openai.ChatCompletionChunk) {
	if len(c.JSON.ExtraFields) == 0 {
		return
	}
	if f, ok := c.JSON.ExtraFields[modalityField]; !ok || f.Raw() != `"audio"` {
		return
	}
	for i := range c.Choices {
		d := &c.Choices[i].Delta
		if d.Content == "" {
			continue
		}
		d.Audio.Data = d.Content
		d.JSON.Audio = respjson.NewField(`{"data":` + d.JSON.Content.Raw() + `}`)
		d.Content, d.JSON.Content = "", respjson.Field{}
	}
}
