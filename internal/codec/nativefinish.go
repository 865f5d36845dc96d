package codec

import (
	"strings"

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
//
// When finish_reason is "stop" but native names one of Gemini's filters
// (see nativeFilters), the finish reason is "content_filter": CLIProxyAPI
// finishes every Gemini answer "stop" but one cut by MAX_TOKENS or
// making a call, and gives Gemini's own reason only in lower case as
// native_finish_reason (router-for-me/CLIProxyAPI
// internal/translator/gemini/openai/chat-completions/gemini_openai_response.go,
// ConvertGeminiResponseToOpenAI), so an answer Gemini's safety filter
// stopped mid-sentence reads as a whole one.
func finishReason[T ~string](r T, native respjson.Field) T {
	if r == "null" {
		return ""
	}
	if r != "" && !FailedFinish(string(r)) {
		n := gjson.Parse(native.Raw()).String()
		switch {
		case FailedFinish(n):
			return T(n)
		case r == "stop" && nativeFilters[strings.ToUpper(n)]:
			return "content_filter"
		}
	}
	return r
}

// nativeFilters are Gemini's finish reasons by which a filter, not the
// model, ended the answer (ai.google.dev/api/generate-content,
// FinishReason): what OpenAI calls "content_filter". Envoy AI Gateway
// maps the safety ones so (envoyproxy/ai-gateway
// internal/translator/gemini_helper.go, geminiFinishReasonToOpenAI).
var nativeFilters = map[string]bool{
	"SAFETY": true, "RECITATION": true, "BLOCKLIST": true, "PROHIBITED_CONTENT": true, "SPII": true,
	"IMAGE_SAFETY": true, "IMAGE_PROHIBITED_CONTENT": true, "IMAGE_RECITATION": true,
}
