package codec

import "github.com/openai/openai-go/v3"

// Chunks written from openai-go's zero value, which never finish.
//
// Nexa SDK's server (NexaAI/nexa-sdk runner/server/handler/chat.go, as of
// February 2026) writes each token as an openai-go ChatCompletionChunk
// with only its delta's content and role set, through gin's SSEvent,
// which encodes the whole struct with encoding/json: every zero value is
// written out, id "", created 0, model "", service_tier "" and
// finish_reason "". No chunk ever carries a finish reason: after the last
// token come the usage chunk, when asked for, and [DONE], or, when the
// generation failed, an error event and no [DONE]. Read as any other
// stream, every answer was a cut one (KindTruncated "no finish_reason"),
// and a Router carried on an answer that was whole.

// zeroChunk reports whether c was written from openai-go's zero value by
// encoding/json: no id, created or model, and service_tier the empty
// string, which is none of the API's values (those are a tier's name or
// null).
func zeroChunk(c *openai.ChatCompletionChunk) bool {
	return c.ID == "" && c.Created == 0 && c.Model == "" && c.JSON.ServiceTier.Raw() == `""`
}
