package codec

import "strings"

// ModelEndedParseError reports whether reason, the finish reason of an
// answer whose server counted used output tokens (negative: it sent no
// usage) for a request that allowed limit of them (0: no limit, see
// OutputLimit), is LMDeploy's "parse_error" over an answer its model
// ended itself. LMDeploy, for a request that asks return_token_ids or
// return_routed_experts, writes "parse_error" in the place of the
// engine's "stop" or "length" when its parser finds the answer invalid:
// a reasoning never closed by </think>, or a tool call that is no JSON
// or names no function (InternLM/lmdeploy
// lmdeploy/serve/openai/chat_completions/serving.py,
// _completion_stream_generator; lmdeploy/serve/parsers/response_parser.py
// and tool_parser/tool_parser.py, validate_complete). Its engine says
// "length" when the request's limit is spent (its usage counts every
// token, lmdeploy/serve/core/async_engine.py, generate), so a usage under
// the limit says the model ended the answer: its verdict is on a finished
// answer, which a continuation would carry on past its end. Without a
// limit the engine's own is the context left, and an answer that spent it
// cannot be carried on either. An answer cut at the limit, or of no usage
// to tell, is not one.
func ModelEndedParseError(reason string, used, limit int64) bool {
	return strings.EqualFold(reason, "parse_error") && used >= 0 && (limit <= 0 || used < limit)
}
