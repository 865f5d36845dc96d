package codec

import (
	"errors"

	"github.com/tidwall/gjson"
)

// verdictCodes are the codes of errors by which a server, once the
// answer it streamed has finished, says that the answer fails what the
// request asked of it, and sends the usage and [DONE] after as for a
// whole one. vMLX (jjang-ai/vmlx vmlx_engine/server.py,
// stream_chat_completion) checks the streamed answer at its end:
// "tool_calls_required" when tool_choice was "required" and the model
// answered in words, "json_validation_failed" when a strict json_schema
// response_format does not validate; both after the finish "stop" of the
// last token's chunk. Rapid-MLX (raullenchai/Rapid-MLX
// vllm_mlx/routes/chat.py, stream_chat_completion_strict_postgen) sends
// "json_schema_violation" after its finish of the same name when a
// strict json_schema answer does not validate once streamed.
var verdictCodes = map[string]bool{
	"tool_calls_required":    true,
	"json_validation_failed": true,
	"json_schema_violation":  true,
}

// AnswerRejected reports whether err, an error of Decode, is a server's
// verdict on the answer it streamed before (see verdictCodes): the
// answer failed, though it finished; or an error of an omni server that
// streams its answer in stages (see omniStaged), whose later stage, the
// spoken answer, failed after the text finished. Any other error event after a
// finished answer leaves it whole. No continuation can make a rejected
// answer right: the words the server judged would begin the next
// route's answer (a required call's place taken by words, JSON that
// breaks the schema), so a Router starts that answer afresh.
func AnswerRejected(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e.Server == nil {
		return false
	}
	if e.Rejected {
		return true // a stage of an omni server's answer failed (see omniStaged)
	}
	code := e.Server.Code
	if e.Server.Raw != "" {
		code = gjson.Get(e.Server.Raw, "code").Str
	}
	return verdictCodes[code]
}
