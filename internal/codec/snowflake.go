package codec

import "github.com/openai/openai-go/v3"

// Snowflake Cortex's chat stream of a Claude model, which never finishes.
//
// Snowflake Cortex's OpenAI SDK compatibility
// (<account>.snowflakecomputing.com/api/v2/cortex/v1/chat/completions)
// streams a Claude model's answer in chunks written from Go zero values:
// id "", created 0, service_tier "" and system_fingerprint "", beside the
// model's name; every delta carries the role, refusal "" and tool_calls
// null, and no choice has a finish_reason member at all. After the last
// token come the usage chunk (choices []) and [DONE] (the bodies recorded
// live in pydantic/pydantic-ai
// tests/models/cassettes/test_snowflake/test_snowflake_model_streaming.yaml
// and test_snowflake_thinking_streaming.yaml; its SnowflakeModel coerces
// the finish reason Cortex leaves empty for Claude models). Read as any
// other stream, every whole answer was a cut one (KindTruncated "no
// finish_reason"), and a Router carried on an answer that was whole.

// snowflakeChunk reports whether c is in the shape of Cortex's chunks of a
// Claude answer: no id or created, a model, service_tier and
// system_fingerprint the empty string (none of the API's values: those
// are a tier's name, a fingerprint or null), and no choice with a
// finish reason: no member, or "" as its whole answers of every model
// carry (test_snowflake_llama.yaml), should a stream carry it too.
func snowflakeChunk(c *openai.ChatCompletionChunk) bool {
	if c.ID != "" || c.Created != 0 || c.Model == "" || c.JSON.ServiceTier.Raw() != `""` || c.JSON.SystemFingerprint.Raw() != `""` {
		return false
	}
	for i := range c.Choices {
		if f := c.Choices[i].JSON.FinishReason.Raw(); f != "" && f != `""` {
			return false
		}
	}
	return true
}
