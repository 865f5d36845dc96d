package codec

import (
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/tidwall/gjson"
)

// nativeFinishField is the member of a choice in which OpenRouter gives
// the finish reason of the provider it routed the request to, beside its
// own word for it in finish_reason (openrouter.ai/docs, the response's
// native_finish_reason).
const nativeFinishField = "native_finish_reason"

// finishReason returns a choice's finish reason, "" for none: also the
// string "null", which KoboldCpp sent on every chunk before 1.86
// (PowerShell/AIShell#350), for a finish reason would tell a stream cut
// after it from a complete one.
//
// native is the choice's native_finish_reason. When it names a failure
// (see FailedFinish) that finish_reason does not, it is the finish
// reason: OpenRouter ends an answer its provider lost mid-request
// ("network_error", "error") with finish_reason "stop", no error object
// and [DONE], as it ends a whole one (earendil-works/pi#8511,
// OleksandrChekhovskyi/hax#15), and a caller would take the cut answer,
// often empty, for the model's.
func finishReason[T ~string](r T, native respjson.Field) T {
	if r == "null" {
		return ""
	}
	if r != "" && !FailedFinish(string(r)) {
		if n := gjson.Parse(native.Raw()).String(); FailedFinish(n) {
			return T(n)
		}
	}
	return r
}
