package codec

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/tidwall/gjson"
)

// A chat delta's audio field carries audio output: OpenAI's audio models
// asked for modalities ["text","audio"], and omni models served the same
// way. It comes in pieces: the id with the first piece of the transcript,
// then pieces of the transcript and of the base64 data, and at last the
// expiry alone (openai/openai-openapi#577, openai/openai-node#1991). The
// text of such an answer is the transcript; its content stays empty.
// openai-go decodes the field, but its accumulator drops it, so the
// assistant message built from it (ToParam) loses the audio id by which a
// follow-up turn refers to the audio.

// audioOutput reports whether a delta carries audio output: some of the
// audio or of its transcript. The id or the expiry alone do not.
func audioOutput(d *openai.ChatCompletionChunkChoiceDelta) bool {
	return d.Audio.Data != "" || d.Audio.Transcript != ""
}

// Ends reports whether ch ends its choice's answer: it gives its finish
// reason, or, for an answer spoken as audio, the audio's expiry alone,
// the last piece OpenAI sends of it, with no finish reason after
// (openai/openai-node#1991).
func Ends(ch *openai.ChatCompletionChunkChoice) bool {
	a := &ch.Delta.Audio
	return ch.FinishReason != "" || (a.ExpiresAt != 0 && a.Data == "" && a.Transcript == "")
}

// audioParts gathers the audio pieces of one choice.
type audioParts struct {
	id               string
	data, transcript strings.Builder
	expiresAt        int64
}

// add adds a piece: its data and transcript after those before, its id and
// expiry over any earlier ones.
func (a *audioParts) add(p *openai.ChatCompletionChunkChoiceDeltaAudio) {
	if p.ID != "" {
		a.id = p.ID
	}
	if p.ExpiresAt != 0 {
		a.expiresAt = p.ExpiresAt
	}
	a.data.WriteString(p.Data)
	a.transcript.WriteString(p.Transcript)
}

// audio returns the gathered audio, its data the pieces' base64 one after
// the other, as OpenAI's own SDKs gather it.
func (a *audioParts) audio() openai.ChatCompletionAudio {
	return openai.ChatCompletionAudio{ID: a.id, Data: a.data.String(), Transcript: a.transcript.String(), ExpiresAt: a.expiresAt}
}

// audioChoices gathers the audio of a stream's choices, by choice index.
type audioChoices map[int64]*audioParts

// add adds the audio pieces of chunk c's deltas, and returns the map (a
// new one when it was nil and c has some).
func (m audioChoices) add(c *openai.ChatCompletionChunk) audioChoices {
	for i := range c.Choices {
		ch := &c.Choices[i]
		if !ch.Delta.JSON.Audio.Valid() {
			continue
		}
		if m == nil {
			m = audioChoices{}
		}
		if m[ch.Index] == nil {
			m[ch.Index] = new(audioParts)
		}
		m[ch.Index].add(&ch.Delta.Audio)
	}
	return m
}

// setOn sets the audio of each choice of cc that streamed some.
func (m audioChoices) setOn(cc *openai.ChatCompletion) {
	for i, a := range m {
		if i >= 0 && int(i) < len(cc.Choices) {
			cc.Choices[i].Message.Audio = a.audio()
		}
	}
}

// Spoken reports whether r is a chat request that asks for its answer
// spoken: modalities with "audio", in its parameters or set as an extra
// field. Such an answer is restarted, never continued: an omni server
// speaks the answer's text once it has it whole (vLLM-Omni's audio
// stage, see omniAudio), and OpenAI's audio models speak what they
// write, so a continuation's audio would speak only the words after the
// text so far, and the caller, holding the first route's text, would
// hear half an answer.
func Spoken(r Request) bool {
	c, ok := r.(chat)
	if !ok {
		return false
	}
	audio, _ := c.outputModalities()
	return audio
}

// outputModalities reports whether r's modalities, in its parameters or
// set as an extra field, hold "audio", and whether r names any.
func (r chat) outputModalities() (audio, named bool) {
	if slices.Contains(r.p.Modalities, "audio") {
		return true, true
	}
	named = len(r.p.Modalities) > 0
	v, ok := r.p.ExtraFields()["modalities"]
	if !ok {
		return false, named
	}
	b, err := json.Marshal(v)
	if err != nil {
		return false, named
	}
	m := gjson.ParseBytes(b)
	return slices.ContainsFunc(m.Array(), func(m gjson.Result) bool { return m.Str == "audio" }), named || m.IsArray()
}
