package wire

import (
	"net/http"
	"regexp"
	"strings"
)

// Request errors TensorZero answers with 502.
//
// TensorZero's gateway answers a request none of its function's variants
// could serve with AllVariantsFailed, whose status is 502 Bad Gateway
// unless its last failure was a rate limit (429, since
// tensorzero/tensorzero#7373); its OpenAI-compatible endpoint gives it
// as {"error":{"message":"All variants failed with errors: <variant>:
// All model providers failed to infer with errors: <provider>: Error 400
// Bad Request from <provider type> client: <the provider's body>"}}
// (crates/tensorzero-error/src/lib.rs: status_code, build_response_body,
// the Display of AllVariantsFailed, AllModelProvidersFailed and
// InferenceClient). Its OpenAI-style providers (vLLM, SGLang, OpenAI
// and the like) report a provider's 400, 401, 403 and 429 as
// InferenceClient with that status, any other as InferenceServer,
// "Error from <provider type> server: …", with none
// (crates/tensorzero-core/src/providers/openai/mod.rs,
// handle_openai_error). A request every provider refused with 400 (a
// prompt over the model's context, a parameter out of range) is the
// caller's: sent again, it gets the same answer; counted by a breaker, a
// few open it on a gateway that is well.

// tensorZeroAllFailed begins the message of TensorZero's AllVariantsFailed.
const tensorZeroAllFailed = "All variants failed with errors: "

// tensorZeroRefused is how TensorZero writes a provider's 400.
const tensorZeroRefused = "Error 400 Bad Request from "

// tensorZeroOtherFailure matches, in TensorZero's message, a provider
// error of another status, or of none (a provider's own failure, an
// unreachable one), and a timeout of a provider, model or variant.
var tensorZeroOtherFailure = regexp.MustCompile(`Error (?:[0-35-9]\d\d|4(?:[1-9]\d|0[1-9])) [A-Za-z' -]+ from |Error from \S+ (?:client|server): | timed out`)

// TensorZeroRequestError reports whether res is TensorZero's 502 for a
// request whose every provider refused it with 400, and nothing else
// failed (see tensorZeroRefused). It reads the body, bounded already
// (BoundErrorBody), and puts it back.
func TensorZeroRequestError(res *http.Response) bool {
	e, ok := errorOf(res, http.StatusBadGateway)
	return ok && strings.HasPrefix(e.Message, tensorZeroAllFailed) && strings.Contains(e.Message, tensorZeroRefused) &&
		!tensorZeroOtherFailure.MatchString(e.Message)
}
