package tokenpace

import (
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/tidwall/gjson"
)

// liteLLMGuardrailBlocked reports whether ae, an error object that ended a
// stream, is LiteLLM's proxy writing a guardrail's block of an answer it
// had begun to release. A guardrail that checks a stream as it passes
// raises its block inside the proxy's generator once the 200 is sent, and
// the proxy writes any such exception as one event,
// {"error":{"message":…,"type":…,"param":…,"code":…}}, taking type and
// param from the exception's attributes, or the string "None" when it has
// none, and code from its status_code, or 500, as a string
// (BerriAI/litellm litellm/proxy/proxy_server.py, async_data_generator;
// ProxyException in litellm/proxy/_types.py). LiteLLM's own failures are
// OpenAI's exception types and write a type of null or a name; "None" is
// an exception of no such type, as LiteLLM's guardrails raise:
//   - code "400": GuardrailRaisedException and BlockedPiiEntityError carry
//     the status 400 since BerriAI/litellm#27617 (litellm/exceptions.py),
//     which the Generic Guardrail API's action mode raises when it blocks
//     after the samples it passed were sent, with the guardrail's reason
//     or "Content violates policy" as the message
//     (litellm/proxy/guardrails/guardrail_hooks/unified_guardrail/
//     unified_guardrail.py, _action_mode_stream); LiteLLM reads a
//     guardrail's 400 as its intervention (custom_guardrail.py,
//     _is_guardrail_intervention).
//   - code "500", told by its words: those two exceptions before #27617
//     (liteLLMGuardrailWords), and StreamingCallbackError, the proxy's
//     exception for a streaming hook's block, which has no status, with
//     the words of the guardrail that raised it: Prompt Security's
//     "Blocked by Prompt Security, Violations: …"
//     (guardrail_hooks/prompt_security/prompt_security.py at 56fab12);
//     AIM's and Cato's pass on their service's own words, unknown. Any
//     other exception of the proxy's ("litellm.APIConnectionError: …", a
//     Python error and its traceback) is its failure, not a block.
func liteLLMGuardrailBlocked(ae *openai.Error) bool {
	raw := ae.RawJSON()
	if raw == "" {
		return false
	}
	r := gjson.GetMany(raw, "type", "param", "code", "message")
	if r[0].Type != gjson.String || r[0].Str != "None" || r[1].Type != gjson.String || r[1].Str != "None" || r[2].Type != gjson.String {
		return false
	}
	switch r[2].Str {
	case "400":
		return true
	case "500":
		for _, w := range liteLLMGuardrailWords {
			if strings.HasPrefix(r[3].Str, w) {
				return true
			}
		}
	}
	return false
}

// liteLLMGuardrailWords are the beginnings of the messages of LiteLLM's
// guardrail exceptions that carry no status of their own (see
// liteLLMGuardrailBlocked): GuardrailRaisedException's default message
// and BlockedPiiEntityError's before BerriAI/litellm#27617
// (litellm/exceptions.py at 64ecc9b), and Prompt Security's
// StreamingCallbackError.
var liteLLMGuardrailWords = []string{
	"Guardrail raised an exception, Guardrail: ",
	"Blocked entity detected: ",
	"Blocked by Prompt Security",
}
