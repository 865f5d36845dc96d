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
// {"error":{"message":…,"type":…,"param":…,"code":…}}, the code its
// status_code, or 500, as a string (BerriAI/litellm
// litellm/proxy/proxy_server.py, async_data_generator; ProxyException in
// litellm/proxy/_types.py). Its type and param come in one of two forms:
//   - before BerriAI/litellm#39521 (merged September 2026), the
//     exception's attributes, or the string "None" when it has none.
//     LiteLLM's own failures are OpenAI's exception classes, whose type and
//     param are null when LiteLLM raises them; "None" is an exception of
//     no such class, as LiteLLM's guardrails raise. With the code "400" it
//     is GuardrailRaisedException or BlockedPiiEntityError, which carry
//     the status 400 since BerriAI/litellm#27617 (litellm/exceptions.py):
//     the Generic Guardrail API's action mode raises the first when it
//     blocks after the samples it passed were sent, with the guardrail's
//     reason or "Content violates policy" as the message
//     (litellm/proxy/guardrails/guardrail_hooks/unified_guardrail/
//     unified_guardrail.py, _action_mode_stream), and LiteLLM reads a
//     guardrail's 400 as its intervention (custom_guardrail.py,
//     _is_guardrail_intervention). With "500" only its words tell (see
//     liteLLMGuardrailWords).
//   - since #39521, the type its status stands for when the exception
//     names none, "invalid_request_error" for 400 and
//     "internal_server_error" for 500, and param null
//     (litellm/proxy/common_utils/openai_error_payload.py): the same type
//     as LiteLLM's own request errors, so only a guardrail's words tell;
//     LiteLLM documents Prompt Security's block of a stream so, with the
//     code "400" and then [DONE] (docs/my-website/docs/proxy/guardrails/
//     prompt_security.md, Streaming Support).
//
// The action mode also raises GuardrailRaisedException, with the same
// status, when the guardrail itself broke the protocol ("… action
// protocol violation": a WAIT at the end of the stream, text taken back
// after it was sent): the gateway's failure, not a policy's block, as
// NeMo's rail that failed to run (see policyBlocked). Any other exception
// of the proxy's ("litellm.APIConnectionError: …", a Python error and its
// traceback) is its failure, not a block.
func liteLLMGuardrailBlocked(ae *openai.Error) bool {
	raw := ae.RawJSON()
	if raw == "" {
		return false
	}
	r := gjson.GetMany(raw, "type", "param", "code", "message")
	typ, param, code, msg := r[0], r[1], r[2], r[3].Str
	if code.Type != gjson.String || strings.Contains(msg, liteLLMGuardrailBroke) {
		return false
	}
	if typ.Type == gjson.String && typ.Str == "None" && param.Type == gjson.String && param.Str == "None" {
		return code.Str == "400" || code.Str == "500" && liteLLMGuardrailSaid(msg)
	}
	if param.Type != gjson.Null || typ.Type != gjson.String {
		return false
	}
	return (code.Str == "400" && typ.Str == "invalid_request_error" || code.Str == "500" && typ.Str == "internal_server_error") &&
		liteLLMGuardrailSaid(msg)
}

// liteLLMGuardrailSaid reports whether msg begins with the words of one of
// LiteLLM's guardrails (see liteLLMGuardrailWords).
func liteLLMGuardrailSaid(msg string) bool {
	for _, w := range liteLLMGuardrailWords {
		if strings.HasPrefix(msg, w) {
			return true
		}
	}
	return false
}

// liteLLMGuardrailWords are the beginnings of the messages of LiteLLM's
// guardrails' blocks (see liteLLMGuardrailBlocked):
// GuardrailRaisedException's default message and BlockedPiiEntityError's
// (litellm/exceptions.py at 64ecc9b, the same before and after #27617),
// the Generic Guardrail API's default reason in action mode
// (unified_guardrail.py at 3cccd65), and Prompt Security's, raised as
// StreamingCallbackError, which has no status (prompt_security.py at
// 56fab12, "Blocked by Prompt Security, Violations: …"). A guardrail's own
// reason, as the action mode passes it on, and AIM's and Cato's words
// (their service's) are not known.
var liteLLMGuardrailWords = []string{
	"Guardrail raised an exception, Guardrail: ",
	"Blocked entity detected: ",
	"Blocked by Prompt Security",
	"Content violates policy",
}

// liteLLMGuardrailFailed reports whether ae is the exception LiteLLM's
// action mode raises when the guardrail broke its protocol (see
// liteLLMGuardrailBroke), written as LiteLLM's error object (see
// liteLLMGuardrailBlocked). It carries the block's status, 400, but the
// gateway failed, not the request: a breaker counts it.
func liteLLMGuardrailFailed(ae *openai.Error) bool {
	raw := ae.RawJSON()
	if raw == "" {
		return false
	}
	r := gjson.GetMany(raw, "code", "message")
	return r[0].Type == gjson.String && strings.Contains(r[1].Str, liteLLMGuardrailBroke)
}

// liteLLMGuardrailBroke marks the message of the GuardrailRaisedException
// LiteLLM's action mode raises when the guardrail broke its protocol
// (unified_guardrail.py at 3cccd65: _validate_cursor_monotonic, "…
// — action protocol violation"; a WAIT at the end of the stream, "…
// (action protocol violation)").
const liteLLMGuardrailBroke = "action protocol violation"
