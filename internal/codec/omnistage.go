package codec

import (
	"errors"

	"github.com/openai/openai-go/v3"
)

// An omni server streams one answer in stages: vLLM-Omni, serving an omni
// model whose output modalities are text and audio (its default when the
// request names none), streams the text stage's chunks, their finish
// "stop" among them, and only then makes the spoken answer of that whole
// text and sends it as one more chunk, every chunk marked by a top-level
// "modality" (see omniAudio). Its stream generator runs every stage in
// one try, so a stage that fails after the text has finished (the WAV
// cannot be written without the optional soundfile package,
// AudioMixin.create_audio) comes as an error event after that finish,
// then [DONE] (vllm-project/vllm-omni
// vllm_omni/entrypoints/openai/serving_chat.py,
// chat_completion_stream_generator). The text is whole, the answer is
// not: the audio it asked for never came. Such an error is the server's
// verdict on the answer (see AnswerRejected): it ends the stream as the
// server's error, the text kept, and a Router starts the answer afresh,
// since a continuation would speak only the words after the text so far.
// A request that names its modalities without audio has no audio stage
// (the generator leaves out every output of a modality the request did
// not name): its errors are any server's (see audioStaged).

// omniStaged reports whether c carries vLLM-Omni's modality member. A
// chunk without extra fields costs one length check.
func omniStaged(c *openai.ChatCompletionChunk) bool {
	if len(c.JSON.ExtraFields) == 0 {
		return false
	}
	_, ok := c.JSON.ExtraFields[modalityField]
	return ok
}

// audioStaged reports whether r's answer may have an audio stage after
// its text: r asks for audio, or names no modalities, so that the
// server's own are used (text and audio for Qwen2.5-Omni's stages).
func audioStaged(r chat) bool {
	audio, named := r.outputModalities()
	return audio || !named
}

// stageFailed marks err, an error of Decode, as a verdict on the answer
// when it is an error the server sent (see AnswerRejected); any other
// error is returned as it is.
func stageFailed(err error) error {
	var e *Error
	if errors.As(err, &e) && e.Server != nil {
		e.Rejected = true
	}
	return err
}
