package tokenpace

import (
	"cmp"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/tidwall/gjson"

	"github.com/tokenpace/tokenpace/internal/codec"
	"github.com/tokenpace/tokenpace/internal/wire"
)

// The status of an error a server sent inside its 200 stream.
//
// Many servers begin their 200 event stream before they have looked at
// the request, and send a refusal of it as an error event: without a
// status, it would count as the server's failure, and a Router's breaker
// would open on a server that is well. Each function below reads the
// status one family of servers writes into such an event; the first that
// finds one gives it.

// streamedStatus returns the status that e, an error event a server sent
// inside its stream, decoded as apiErr, carries in its own words; 0 if it
// carries none.
func streamedStatus(e *codec.ServerError, apiErr *openai.Error) int {
	if mistralRsOutOfCache(e) {
		return 0
	}
	if rtpLLMError(e) {
		return rtpLLMStatus(e) // its codes are its own numbers, never statuses
	}
	return cmp.Or(starletteStatus(apiErr), relayedStatus(e.Raw), openRouterStatus(e.Raw), flatStatus(e.Flat), eventStatus(e), typeStatus(e.Type),
		namedStatus(e.Raw), llamaCppStatus(e.Raw), validationStatus(e.Raw, apiErr), ollamaStatus(e), miniMaxStatus(e), codeStatus(e),
		mistralRsStatus(e.Raw, apiErr), faultTypeStatus(e.Raw), compressionStatus(apiErr), genieXStatus(e),
		lmStudioStatus(e.Raw), lmStudioOverflowStatus(apiErr), bridgeFailureStatus(e), ragFlowStatus(e), xllmStatus(e), templateRefusalStatus(apiErr), gpt2GigaStatus(e.Raw), guardrailStatus(e.Raw), aisixGuardStatus(e.Raw), omniRouteStatus(e.Raw),
		workerVLLMStatus(e.Raw), lmStudioEngineStatus(apiErr))
}

// guardrailStatus returns 403 when raw, an error object a server sent
// inside its stream, is agentgateway's block of an answer by a response
// prompt guard evaluated on the stream: type "guardrail_blocked", code
// "guardrail_intervention", the guard's rejection body as the message,
// sent in place of the held frames as the stream's last event
// (agentgateway/agentgateway crates/agentgateway/src/llm/policy/streaming_guardrails.rs,
// guardrail_blocked_sse_bytes). The same guard rejects a whole answer
// with its rejection response, 403 unless configured otherwise
// (crates/agentgateway/src/llm/policy/mod.rs, default_code): a policy's
// refusal, not the server's failure (see excludedFromBreaker). 0 for any
// other error.
func guardrailStatus(raw string) int {
	if raw == "" {
		return 0
	}
	r := gjson.GetMany(raw, "type", "code")
	if r[0].Str != "guardrail_blocked" || r[1].Str != "guardrail_intervention" {
		return 0
	}
	return http.StatusForbidden
}

// aisixGuardStatus returns 422 when raw, an error object a server sent
// inside its stream, is AISIX's block of an answer by an output guardrail
// evaluated on the stream window by window: after the windows that
// passed, an event named error whose data is an error object of type
// "content_filter", the guardrail named in its message, no code (api7/aisix
// crates/aisix-proxy/src/chat.rs, error_frame_payload). The same
// guardrail's refusal of a whole answer is 422 with that type and message
// (crates/aisix-proxy/src/error.rs, ContentFiltered): a policy's refusal,
// not the server's failure (see excludedFromBreaker). 0 for any other
// error.
func aisixGuardStatus(raw string) int {
	if raw == "" {
		return 0
	}
	r := gjson.GetMany(raw, "type", "code")
	if r[0].Str != "content_filter" || r[1].Exists() {
		return 0
	}
	return http.StatusUnprocessableEntity
}

// omniRouteTypes are the type and code OmniRoute writes, by status, into
// the error bodies it makes of a request's failure (diegosouzapw/OmniRoute
// open-sse/config/errorConfig.ts, ERROR_TYPES), of the statuses a caller
// answers for: the request, or the model it names. Its 401, 402 and 403
// are left out: after the keepalive threshold they are the accounts
// behind the route refused, unpaid or past their quota (its ERROR_RULES
// read them as auth_error and quota_exhausted, states of an account),
// which every request meets alike until they are mended, as OpenAI's
// 429 "insufficient_quota" (see wire.QuotaSpent): a breaker counts them.
var omniRouteTypes = map[[2]string]int{
	{"invalid_request_error", "bad_request"}:         http.StatusBadRequest,
	{"invalid_request_error", "model_not_found"}:     http.StatusNotFound,
	{"invalid_request_error", "model_not_supported"}: http.StatusNotAcceptable,
}

// omniRouteStatus returns the status that raw, an error object a server
// sent inside its stream, stands for when its type and code are a pair
// of omniRouteTypes. OmniRoute commits a slow chat call to a 200 event
// stream at its keepalive threshold, and writes the error body its
// upstreams' failure gave afterwards as one event, as it is, without the
// status (open-sse/utils/earlyStreamKeepalive.ts, withEarlyStreamKeepalive);
// only the pair tells a refused request from the server's failure. With
// that status, the refusal counts as the request's, not the server's (see
// excludedFromBreaker). 0 for any other error.
func omniRouteStatus(raw string) int {
	if raw == "" {
		return 0
	}
	r := gjson.GetMany(raw, "type", "code")
	if r[0].Type != gjson.String || r[1].Type != gjson.String {
		return 0
	}
	return omniRouteTypes[[2]string{r[0].Str, r[1].Str}]
}

// policyBlocked reports whether err ended a stream with a content
// policy's block of its answer: agentgateway's streamed guard (see
// guardrailStatus), which releases the text of each window that passes
// and blocks a later one; apfel's "content_policy_violation" (see
// faultTypes), which its stream sends the same way whether the text had
// begun or not (Sources/Handlers.swift, streamingResponse's catch: only an
// overflow of the context after text ends as "length"); and the codes of
// policyBlockCodes, as type or as code: DashScope's output screen stops an
// answer mid-stream with type and code "data_inspection_failed" (see
// requestFaultCodes), and Azure OpenAI names its content filter's block
// by the code "content_policy_violation" under the type
// "invalid_request_error" (maximhq/bifrost#6652); AISIX's windowed output
// guardrail by the type "content_filter" (see aisixGuardStatus); NeMo
// Guardrails' server, whose output rails run on the stream as it is
// released (stream_first), by the type "guardrails_violation" and the
// code "content_blocked" of the error it sends in place of the chunk a
// rail blocked, then [DONE] (NVIDIA-NeMo/Guardrails
// nemoguardrails/rails/llm/llmrails.py, _run_output_rails_in_streaming;
// nemoguardrails/server/api.py, _format_streaming_response); it names no
// status, and a rail that failed to run is of another type and code.
// A platform that writes its failures as a status of its own names the
// block by a number (see reviewBlockCodes); LiteLLM's proxy, by an error
// of no OpenAI type (see liteLLMGuardrailBlocked).
// A Router never carries such an answer on at another route: the
// continuation would write what the policy withheld from the caller.
func policyBlocked(err error) bool {
	var se *StreamError
	var ae *openai.Error
	if !errors.As(err, &se) || se.Kind != KindErrorEvent || !errors.As(err, &ae) {
		return false
	}
	return ae.Type == "guardrail_blocked" && ae.Code == "guardrail_intervention" || policyBlockCodes[ae.Type] || policyBlockCodes[ae.Code] ||
		reviewBlocked(ae) || liteLLMGuardrailBlocked(ae)
}

// reviewBlocked reports whether ae is a platform's own failure naming its
// content review's block by a number of reviewBlockCodes: as the codec
// read it from the platform's status (no raw JSON: Spark's status alone,
// MiniMax's base_resp), or as the JSON number "code" of the error object
// iFlytek also sends in its 200 stream, {"error":{"code":…,"message":…}}
// (router-for-me/CLIProxyAPI internal/runtime/executor,
// openai_compat_executor.go, classifyXunfeiError: "Xunfei errors can
// appear in two formats", nested and flat). A string code, as other
// servers' error objects carry, names none of these.
func reviewBlocked(ae *openai.Error) bool {
	raw := ae.RawJSON()
	if raw == "" {
		return reviewBlockCodes[ae.Code]
	}
	code := gjson.Get(raw, "code")
	return code.Type == gjson.Number && reviewBlockCodes[code.Raw]
}

// reviewBlockCodes are the numbers by which a platform's own failure
// names its content review's block of an answer (see reviewBlocked), none
// of them an HTTP status. iFlytek Spark's OpenAI-compatible API sends a
// failure in its 200 stream as the status alone,
// {"code":…,"message":…,"sid":…} (see sse.StatusError), or nested in an
// error object, and its table of codes (xfyun.cn/doc/spark, 接口说明; the
// HTTP document's the same) gives 10014 to an output its review refused,
// "后续结果无法展示给用户" (the rest of the answer may not be shown to the
// user), and 10019 to an exchange its review finds leaning to a
// violation, for which it advises telling the user so (the Web API's
// table) or refusing to go on with the user (the assistant API's: "返回结
// 果疑似敏感，建议拒绝用户继续交互"): neither a failure to try again. MiniMax
// writes its failures in base_resp (see codec.BaseRespType), and its
// table gives 1027 to an output it will not send ("output new_sensitive";
// platform.minimax.io/docs/api-reference/errorcode), beside 1026 for an
// input.
var reviewBlockCodes = map[string]bool{"10014": true, "10019": true, "1027": true}

// policyBlockCodes are the names, as an error's type or code, of a
// content policy's block (see policyBlocked); WindsurfAPI's
// "CONTENT_BLOCKED" among them (see requestFaultCodes).
var policyBlockCodes = map[string]bool{
	"content_policy_violation": true, "data_inspection_failed": true, "CONTENT_BLOCKED": true, "content_filter": true,
	"guardrails_violation": true, "content_blocked": true,
}

// templateRefusalStatus returns 400 when apiErr's message is a chat
// template's refusal of the request's messages (wire.TemplateRefused),
// which llama-server answers 500 (see wire.ChatTemplateRefusal) and LM
// Studio passes on inside its 200 event stream, as an event named error:
// "Engine protocol predict request returned 500: Jinja Exception: …"
// (webai-at-home/webai-at-home#215, LM Studio 0.4.20;
// MoonlightByte/NeverEndingQuest#179, LM Studio's log). The same messages
// are refused the same way every time: the request's error, not the
// server's (see excludedFromBreaker). 0 for any other error.
func templateRefusalStatus(apiErr *openai.Error) int {
	if apiErr == nil || !wire.TemplateRefused(apiErr.Message) {
		return 0
	}
	return http.StatusBadRequest
}

// bridgeFailureStatus returns the status that e, a Responses failure
// with code "server_error" (Raw empty), names in its message as a bridge
// over the chat API writes an exception there: Hugging Face's router
// (huggingface/responses.js, served as router.huggingface.co) sends
// response.created and response.in_progress before it asks a provider,
// and any exception after them as response.failed with code
// "server_error" and the exception's message (src/routes/responses.ts,
// runCreateResponseStream). A provider's refusal comes as openai-node's
// APIError words it, "<status> <message>" ("400 The requested model '…'
// is not supported by any provider you have enabled."): 400 to 499, that
// status. A parameter the bridge does not implement comes as "Not
// implemented: …" (innerRunStream, for a reasoning summary other than
// "auto"): 501. With that status, the refusal counts as the request's,
// not the server's (see excludedFromBreaker), but for a 429, which is
// the route's. 0 for any other error: a provider's 5xx, the bridge's own
// failure.
func bridgeFailureStatus(e *codec.ServerError) int {
	if e.Raw != "" || e.Code != "server_error" {
		return 0
	}
	if strings.HasPrefix(e.Message, "Not implemented: ") {
		return http.StatusNotImplemented
	}
	return leadingStatus(e.Message, " ", 400, 499)
}

// ragFlowCodes are the codes of RAGFlow's own status (common/constants.py,
// RetCode) that its OpenAI-compatible chat answers a refused request with,
// and their statuses: ARGUMENT_ERROR and DATA_ERROR, which its request
// checks answer ("You have to provide messages.", "The last content of
// this conversation is not from user.", "You don't own the chat …":
// api/apps/sdk/session.py, chat_completion_openai_like), PERMISSION_ERROR
// and AUTHENTICATION_ERROR (api/utils/api_utils.py, token_required).
var ragFlowCodes = map[string]int{
	"101": http.StatusBadRequest, "102": http.StatusBadRequest,
	"108": http.StatusForbidden, "109": http.StatusUnauthorized,
}

// ragFlowStatus returns the status of e when it is RAGFlow's refusal of a
// request: a platform's status alone as the body (see sse.StatusError),
// with one of ragFlowCodes. RAGFlow answers it with HTTP 200 and
// Content-Type application/json before any stream (get_error_data_result:
// jsonify({"code": code, "message": message})); with no status it counted
// as the server's failure. 0 for any other error.
func ragFlowStatus(e *codec.ServerError) int {
	if e.Raw != "" || e.Type != "" {
		return 0
	}
	return ragFlowCodes[e.Code]
}

// starletteStatus returns the request error's status, 400 to 499, that
// e, an error a server sent inside a stream with no type or code, names
// at the start of its message as Starlette's HTTPException writes itself:
// "400: Invalid value: …". Llama Stack calls its provider only once its
// 200 event stream has begun and sends any exception as such an event,
// {"error": {"message": str(HTTPException)}}, a refused request among
// them (llamastack/llama-stack llama_stack/core/server/server.py,
// sse_generator, translate_exception); with the status it names, the
// refusal counts as the request's, not the server's (see
// excludedFromBreaker). 0 for any other error.
func starletteStatus(e *openai.Error) int {
	if e.Type != "" || e.Code != "" {
		return 0
	}
	return leadingStatus(e.Message, ": ", 400, 499)
}

// leadingStatus returns the status, lo to hi, that m names in its first
// three bytes when sep follows them, as a framework writes an HTTP error
// into its message (see starletteStatus, compressionStatus); 0 otherwise.
func leadingStatus(m, sep string, lo, hi int) int {
	if len(m) < 3+len(sep) || m[3:3+len(sep)] != sep {
		return 0
	}
	s, err := strconv.Atoi(m[:3])
	if err != nil || s < lo || s > hi {
		return 0
	}
	return s
}

// typeStatus returns the status that t, the error_type a server sent
// beside its error's message, gives a request's error in TGI's router,
// whose error shape and statuses LoRAX keeps: 422 for a request refused
// (validation, template_error, tool_error, missing_template_variable),
// 429 for "overloaded" (huggingface/text-generation-inference and
// predibase/lorax router/src/server.rs, From<InferError> for
// (StatusCode, Json<ErrorResponse>)). Both validate a streamed request,
// and take a slot for it, only once the 200 event stream has begun, and
// send the error as its one event (predibase/lorax router/src/server.rs,
// generate_stream_with_callback); with its status, a refused request
// counts as the request's, not the server's (see excludedFromBreaker).
// DeepInfra's refusal inside its stream (see codec's errorTypeFrame) names
// its kind the same way, "validation_error" for a request it refuses:
// 400, as its clients read it (vercel/ai
// packages/deepinfra/src/deepinfra-chat-error.ts). 0 for any other type:
// a failure during generation is the server's.
func typeStatus(t string) int {
	switch t {
	case "validation", "template_error", "tool_error", "missing_template_variable":
		return http.StatusUnprocessableEntity
	case "validation_error":
		return http.StatusBadRequest
	case "overloaded":
		return http.StatusTooManyRequests
	}
	return 0
}

// relayedStatus returns the status, 400 to 599, that raw, an error object
// a server sent inside a stream, names in its status_code member: the
// status its upstream answered with. Lemonade Server (11.6.0 and later)
// sends an upstream's error body, once its own 200 event stream has
// begun, as one event of that body's error object with status_code set
// (lemonade-sdk/lemonade src/cpp/server/streaming_proxy.cpp,
// forward_sse_stream; lemonade-sdk/lemonade#2975, #3006); with that
// status, llama-server's 400 for a prompt over the context counts as the
// request's, not the server's (see excludedFromBreaker). CommandCode's
// error event names it statusCode, beside isRetryable, and 9router before
// decolua/9router#4130 relays that object as its answer's text (see
// codec's commandCodeError): its 400 for messages out of order
// (decolua/9router#3636) is the request's too. 0 for any other error.
func relayedStatus(raw string) int {
	v := gjson.Get(raw, "status_code")
	if !v.Exists() {
		v = gjson.Get(raw, "statusCode")
	}
	if v.Type != gjson.Number || v.Num != float64(int(v.Num)) || v.Num < 400 || v.Num > 599 {
		return 0
	}
	return int(v.Num)
}

// openRouterStatus returns the status that raw, an error object a server
// sent inside a stream, names as its code when it is OpenRouter's: a
// whole number from 400 to 599 beside a metadata object of OpenRouter's
// members (provider_name and raw, its provider's own error body, or
// error_type, its canonical name of the error). OpenRouter's error.code
// is the HTTP status the same error has before a stream
// (openrouter.ai/docs/api/reference/errors-and-debugging); once the model
// is processing, its status is 200 and the error a data event. Its
// provider's refusal of the request arrives so: code 400, "Provider
// returned error", OpenAI's invalid_request_error in metadata.raw
// (ymichael/open-codex#5); with that status it counts as the request's,
// not the route's (see excludedFromBreaker). Its 401 and 402 are the
// account behind the route (a key refused, its credits spent), which every
// request meets alike until mended: 0, so that a breaker counts them, as
// flatStatus leaves OmniRoute's. 0 for any other error.
func openRouterStatus(raw string) int {
	if raw == "" {
		return 0
	}
	r := gjson.GetMany(raw, "code", "metadata.provider_name", "metadata.raw", "metadata.error_type")
	code := r[0]
	if code.Type != gjson.Number || code.Num != float64(int(code.Num)) || code.Num < 400 || code.Num > 599 ||
		!r[1].Exists() && !r[2].Exists() && r[3].Type != gjson.String {
		return 0
	}
	switch s := int(code.Num); s {
	case http.StatusUnauthorized, http.StatusPaymentRequired:
		return 0
	default:
		return s
	}
}

// flatStatus returns the status that flat, a Responses error event with
// its code and message at its top level (codec's ServerError.Flat), names
// in its status_code member as relayedStatus reads it. OmniRoute, a
// Responses call slower than its keepalive threshold committed to 200,
// writes its upstreams' failure so, their status as status_code
// (diegosouzapw/OmniRoute open-sse/utils/earlyStreamKeepalive.ts,
// buildResponsesErrorDataLine): their 400 is the request's. Its 401, 402
// and 403 are the accounts behind the route refused, unpaid or past their
// quota (open-sse/config/errorConfig.ts, ERROR_RULES: auth_error,
// quota_exhausted), which every request meets alike until they are
// mended: 0, so that a breaker counts them (see omniRouteTypes).
func flatStatus(flat string) int {
	switch s := relayedStatus(flat); s {
	case http.StatusUnauthorized, http.StatusPaymentRequired, http.StatusForbidden:
		return 0
	default:
		return s
	}
}

// namedStatus returns the request error's status, 400 to 499, that raw,
// an error object a server sent inside a stream, gives as its code when
// its type is that status's name: SGLang sends an abort that carries a
// status so, create_streaming_error_response(message, status.name,
// status.value), and its scheduler aborts with 400 the requests it
// refuses once the stream has begun, a structured output asked of a
// server without a grammar backend or a prompt over its input limit
// (python/sglang/srt/entrypoints/openai/serving_chat.py,
// _generate_chat_stream; managers/schedule_batch.py,
// set_finish_with_abort); with that status, the refusal counts as the
// request's, not the server's (see excludedFromBreaker). 0 for any other
// error: "BadRequestError" with code 400, which vLLM before
// vllm-project/vllm#49665 gave any exception mid-stream, a dead engine's
// among them, names no status.
func namedStatus(raw string) int {
	code, typ := gjson.Get(raw, "code"), gjson.Get(raw, "type")
	if code.Type != gjson.Number || code.Num != float64(int(code.Num)) || code.Num < 400 || code.Num > 499 || typ.Type != gjson.String {
		return 0
	}
	n := int(code.Num)
	if typ.Str != strings.ToUpper(strings.ReplaceAll(http.StatusText(n), " ", "_")) {
		return 0
	}
	return n
}

// llamaCppRequestTypes are the types llama.cpp's format_error_response
// gives a request's error, with the code it writes beside each.
var llamaCppRequestTypes = map[string]int{
	"invalid_request_error":     http.StatusBadRequest,
	"exceed_context_size_error": http.StatusBadRequest,
	"authentication_error":      http.StatusUnauthorized,
	"permission_error":          http.StatusForbidden,
	"not_found_error":           http.StatusNotFound,
}

// llamaCppStatus returns the request error's status that raw, an error
// object a server sent inside a stream, gives as its code, a number, when
// its type is the one llama.cpp's format_error_response writes beside
// that code for a request's error: {"code":400,"message":…,
// "type":"exceed_context_size_error"} (ggml-org/llama.cpp
// tools/server/server-common.cpp, format_error_response). llama-server
// before ggml-org/llama.cpp#16486 began its 200 event stream before the
// first result, and refused a prompt over the context there (update_slots,
// send_error; oobabooga/textgen#7257); relays keep the object as it came
// (Jan's cortex.cpp, testdata/conformance/cortex-llamaserver-*). With
// that status, the refusal counts as the request's, not the server's
// (see excludedFromBreaker). 0 for any other error: the server's own
// failure is code 500, "server_error"; vLLM's "BadRequestError" with code
// 400 for any exception is no type of llama.cpp's (see namedStatus).
func llamaCppStatus(raw string) int {
	code, typ := gjson.Get(raw, "code"), gjson.Get(raw, "type")
	if code.Type != gjson.Number || typ.Type != gjson.String {
		return 0
	}
	if s, ok := llamaCppRequestTypes[typ.Str]; ok && code.Num == float64(s) {
		return s
	}
	return 0
}

// validationStatus returns 422 when raw, an error object a server sent
// inside a stream, is TGI's refusal of the request: TGI (3.x) validates a
// streamed chat request only once its 200 has begun and sends every
// error there as {"error":{"message":…,"http_status_code":422}}, a
// generation that failed alike (router/src/server.rs,
// generate_stream_internal; router/src/infer/mod.rs, into_openai_event),
// so only the message tells a refusal: a validation error's begins
// "Input validation error: " (InferError::ValidationError); with that
// status, the refusal counts as the request's, not the server's (see
// excludedFromBreaker). 0 for any other error.
func validationStatus(raw string, e *openai.Error) int {
	if !strings.HasPrefix(e.Message, "Input validation error: ") || gjson.Get(raw, "http_status_code").Type != gjson.Number {
		return 0
	}
	return http.StatusUnprocessableEntity
}

// eventStatus returns the request error's status, 400 to 499, that s, an
// error a server sent inside a stream, gives as its code written as a
// string of digits: Llama Stack (OGX) calls its provider only once its
// 200 event stream has begun, and since ogx-ai/ogx#5224 (April 2026)
// sends any exception as the Responses API's error event,
// {"code":"400","message":…,"type":"error"}, its code the status of the
// HTTPException it translates to, a refused request's among them
// (src/ogx_api/responses/fastapi_routes.py, sse_generator); Modular MAX's
// OpenAI router tokenizes a chat prompt only once its 200 event stream
// has begun, and sends a prompt over the model's context, or any other
// InputError, as one event of {"error":{"code":"400","message":…,
// "param":"","type":""}} (modular/modular
// max/python/max/serve/router/openai_routes.py,
// OpenAIChatResponseGenerator.stream). With that status, the refusal
// counts as the request's, not the server's (see excludedFromBreaker). 0
// for any other error: OpenAI's codes are names ("rate_limit_exceeded",
// "server_error"), a code written as a number (vLLM's, llama.cpp's) is
// left as it was, and so is one beside a type that names the server's
// own failure: Baidu's FastDeploy writes the code "400" on every failure
// of a completions stream, its type "internal_error" (PaddlePaddle/FastDeploy
// fastdeploy/entrypoints/openai/serving_completion.py).
func eventStatus(s *codec.ServerError) int {
	code := s.Code
	if s.Raw != "" {
		v := gjson.Get(s.Raw, "code")
		if v.Type != gjson.String {
			return 0
		}
		switch gjson.Get(s.Raw, "type").Str {
		case "internal_error", "server_error", "internal_server_error":
			return 0
		}
		code = v.Str
	}
	if len(code) != 3 || code[0] != '4' {
		return 0
	}
	n, err := strconv.Atoi(code)
	if err != nil || n < 400 || n > 499 {
		return 0
	}
	return n
}

// ollamaCapabilities are the names Ollama gives what a model can do, in
// the refusal of a request that needs what the model cannot
// (ollama/ollama server/images.go, CheckCapabilities), and "chat", in its
// own words for a model that cannot chat (server/routes.go, ChatHandler).
var ollamaCapabilities = map[string]bool{
	"completion": true, "tools": true, "insert": true, "vision": true, "audio": true,
	"embedding": true, "thinking": true, "image generation": true, "chat": true,
}

// ollamaStatus returns the status, 404 or 400, of the request's error that
// e, a Responses error a server sent inside its stream with code
// "api_error", states in Ollama's words. Ollama's /v1/responses with the
// web_search tool keeps its chat handler's status to itself, so a request
// it refuses before any output comes as a 200 event stream ending in
// response.failed with code "api_error", whatever the status
// (ollama/ollama middleware/openai.go, WebSearchResponsesWriter.Write,
// writeWebSearchError); only the message, the handler's, tells a request
// refused from the server's own failure: "model '…' not found" or
// `model "…" not found, try pulling it first` (404), "<model> does not
// support tools", a capability the model lacks (400; the web_search tool
// is a function tool to the model), or "invalid model name" (400)
// (server/routes.go, ChatHandler and handleScheduleError). With that
// status, the refusal counts as the request's, not the server's (see
// excludedFromBreaker). 0 for any other error: a search that failed, a
// model that does not load, a chat error event's code "api_error".
func ollamaStatus(e *codec.ServerError) int {
	if e.Raw != "" || e.Code != "api_error" {
		return 0
	}
	m := e.Message
	switch {
	case strings.HasPrefix(m, "model '") && strings.HasSuffix(m, "' not found"),
		strings.HasPrefix(m, `model "`) && strings.HasSuffix(m, `" not found, try pulling it first`):
		return http.StatusNotFound
	case m == "invalid model name":
		return http.StatusBadRequest
	}
	name, what, ok := strings.Cut(m, " does not support ")
	// The capabilities, one a line; a thinking model of qwen3 or deepseek-r1
	// told to be pulled again.
	what, _, _ = strings.Cut(what, "\n")
	what = strings.TrimSuffix(what, ". Pull the model again to get the latest version with full thinking support")
	if !ok || name == "" || strings.ContainsAny(name, " \n") || !ollamaCapabilities[what] {
		return 0
	}
	return http.StatusBadRequest
}

// miniMaxStatuses are the statuses MiniMax's own codes stand for, of
// those its table of codes tells the request's or the account's from its
// own failure (platform.minimax.io/docs/api-reference/errorcode): 2013
// invalid parameters, 1026 an input it will not read, 1042 one with too
// many invisible characters, 1004 and 2049 a key it does not take, 1008 a
// balance spent, and its rate limits 1002 (requests per minute), 1041
// (connections), 2045 (a rate growing too fast) and 2056 (the usage of a
// 5-hour window). Its other codes (1000 unknown, 1001 timeout, 1024
// internal, 1033 a system error, 1039 "token limit", to be retried) are
// its own; 1027, an output it will not send, is its review's block of the
// answer (see reviewBlockCodes), which no breaker counts.
var miniMaxStatuses = map[string]int{
	"2013": http.StatusBadRequest, "1026": http.StatusBadRequest, "1042": http.StatusBadRequest,
	"1004": http.StatusUnauthorized, "2049": http.StatusUnauthorized,
	"1008": http.StatusPaymentRequired,
	"1002": http.StatusTooManyRequests, "1041": http.StatusTooManyRequests, "2045": http.StatusTooManyRequests,
	"2056": http.StatusTooManyRequests,
}

// miniMaxStatus returns the status that e, MiniMax's base_resp of an
// answer it failed, stands for: MiniMax answers every failure with status
// 200, its own code only in base_resp, streamed or not (see
// codec.BaseRespType). With that status, a request it refused counts as
// the request's, not the server's (see excludedFromBreaker), and a rate
// limit reads as one. 0 for any other error.
func miniMaxStatus(e *codec.ServerError) int {
	if e.Raw != "" || e.Type != codec.BaseRespType {
		return 0
	}
	return miniMaxStatuses[e.Code]
}

// requestFaultCodes are the string codes by which a server's error, sent
// inside its 200 stream, names the request's fault, each read as status
// 400:
//   - the codes the Responses API gives a response that failed on what
//     the request carried (openai-go v3 responses.ResponseErrorCode): a
//     prompt it will not take, an image it cannot read or fetch or will
//     not look at. OpenRouter's Responses API beta commits its 200 event
//     stream before the provider answers and reports a provider's
//     refusal there as response.failed, its 400s (a prompt over the
//     context, an invalid request) under "invalid_prompt"
//     (openrouter.ai/docs/api/reference/responses/error-handling);
//     LMDeploy's /v1/responses ends a request its engine refuses (a
//     prompt over the context, a feature it lacks) the same way
//     (InternLM/lmdeploy lmdeploy/serve/openai/responses/response.py,
//     _response_error_from_finish_reason);
//   - DashScope's content screen, which refuses an answer it will not
//     send with "data_inspection_failed", which its table of codes gives
//     status 400, as it does the same screen's refusal of an input before
//     the stream (help.aliyun.com/zh/model-studio/error-code#inappropriate-content;
//     the message relayed as "<400> InternalError.Algo.DataInspectionFailed:
//     Output data may contain inappropriate content.").
//   - OpenAI's own code for a prompt over the model's context,
//     "context_length_exceeded", which TabbyAPI's 400 before a stream
//     carries and which it sends again, with type "invalid_request_error",
//     inside its stream when ExLlamaV3's generator cannot enqueue a job the
//     check before the stream let through (theroyallab/tabbyAPI
//     common/errors.py, context_length_error_content;
//     endpoints/OAI/utils/chat_completion.py, stream_generate_chat_completion);
//     kiro2api's refusal of an input over CodeWhisperer's limit carries it
//     too (see codec's kiroContentLength).
//   - GitHub Copilot's own code for a request body it refuses,
//     "invalid_request_body" (a body that is not JSON, one its schema
//     fails, a reasoning item's encrypted content it cannot read): a 400
//     before a stream, and, once its Responses stream has begun, an error
//     event after a response.failed of error null, which relays that pass
//     Copilot's events on send as they come (caozhiyuan/copilot-api
//     src/routes/responses/early-response-error.ts,
//     getInvalidRequestError, reads both codes as the request's).
//   - WindsurfAPI's code for a prompt its DEVIN_CONNECT upstream refused
//     by content policy, "CONTENT_BLOCKED": the bridge sends its 200 event
//     stream before the upstream answers, and the refusal there as an
//     error object of type "api_error" with that code, then [DONE]; the
//     same refusal before a stream is its 400 invalid_request_error
//     (dwgx/WindsurfAPI src/handlers/chat.js, connectErrorToHttp;
//     src/devin-connect.js, classifyUpstreamError: "the caller must change
//     the prompt").
//
// "server_error", "rate_limit_exceeded" and the policy codes are the
// route's.
var requestFaultCodes = map[string]bool{
	"invalid_prompt": true, "invalid_image": true, "invalid_image_format": true, "invalid_base64_image": true,
	"invalid_image_url": true, "image_too_large": true, "image_too_small": true, "image_parse_error": true,
	"invalid_image_mode": true, "image_file_too_large": true, "unsupported_image_media_type": true,
	"empty_image_file": true, "failed_to_download_image": true, "image_file_not_found": true,
	"image_content_policy_violation": true, "data_inspection_failed": true,
	"context_length_exceeded": true, "invalid_request_body": true, "CONTENT_BLOCKED": true,
}

// codeStatus returns 400 when e, an error a server sent inside its
// stream, has one of requestFaultCodes for its code: a Responses error's
// (Raw empty), or the string code of a chat server's error object. With
// that status, the refusal counts as the request's, not the server's (see
// excludedFromBreaker). 0 for any other error.
func codeStatus(e *codec.ServerError) int {
	code := e.Code
	if e.Raw != "" {
		v := gjson.Get(e.Raw, "code")
		if v.Type != gjson.String {
			return 0
		}
		code = v.Str
	}
	if !requestFaultCodes[code] {
		return 0
	}
	return http.StatusBadRequest
}

// mistralRsRefusals are the beginnings of the messages with which
// mistral.rs's engine refuses a request (mistralrs-core/src/engine/
// add_request.rs, the Response::ValidationError it sends): a prompt over
// the model's sequence length, an empty prompt, no tokens or choices
// asked, a grammar it cannot build, chat messages for a model without a
// chat template or of another category.
var mistralRsRefusals = []string{
	"Prompt sequence length is greater than ",
	"Received an empty prompt.",
	"max_tokens must be at least 1.",
	"Number of choices must be greater than 0.",
	"Invalid grammar. ",
	"Received messages for a model which does not have a chat template.",
	"Received a request incompatible for this model's category.",
}

// mistralRsStatus returns 400 when raw, an error object a server sent
// inside a stream, is mistral.rs's refusal of the request. mistral.rs
// answers a streamed request with its 200 event stream before its engine
// has looked at it, and sends whatever ends the stream, the request's
// fault or its own, as {"error":{"message":…,"type":"server_error",
// "param":null,"code":null}} then [DONE]
// (mistralrs-server-core/src/streaming.rs, openai_error_event;
// chat_completion.rs and completions.rs, poll_next): only the engine's
// words tell a refusal (mistralRsRefusals). With that status, the
// refusal counts as the request's, not the server's (see
// excludedFromBreaker). 0 for any other error: a model that failed mid-
// answer, the same shape with its own message.
func mistralRsStatus(raw string, e *openai.Error) int {
	if e.Type != "server_error" || gjson.Get(raw, "code").Type != gjson.Null || gjson.Get(raw, "param").Type != gjson.Null {
		return 0
	}
	for _, p := range mistralRsRefusals {
		if strings.HasPrefix(e.Message, p) {
			return http.StatusBadRequest
		}
	}
	if mistralRsOverCapacity(e.Message) {
		return http.StatusBadRequest
	}
	return 0
}

// mistralRsOverCapacity reports whether m is the words with which
// mistral.rs's paged-attention scheduler refuses a prompt of more tokens
// than its whole KV cache holds, which no request to that server can fit
// (mistralrs-core/src/paged_attention/scheduler.rs, the
// "over_total_capacity" rejection since EricLBuehler/mistral.rs#2389):
// "Sequence <id> with <n> tokens exceeds the total KV cache capacity of
// <c> tokens.", the request's size as a prompt over the model's sequence
// length is.
func mistralRsOverCapacity(m string) bool {
	return strings.HasPrefix(m, "Sequence ") && strings.Contains(m, " exceeds the total KV cache capacity of ")
}

// mistralRsOutOfCache reports whether e is mistral.rs's paged-attention
// scheduler finding no KV cache blocks for a prompt that fits the
// cache's capacity, even after preempting every running sequence
// (mistralrs-core/src/paged_attention/scheduler.rs, the "cache_exhausted"
// rejection since EricLBuehler/mistral.rs#2389): the server's memory,
// not the request. Its Responses stream sends it as every
// Response::ValidationError, an error event of type "validation_error"
// (mistralrs-server-core/src/responses.rs, OpenResponsesStreamer), the
// type a refused request's 400 has (typeStatus); only the words tell it.
// Its chat stream types it "server_error", which counts already.
func mistralRsOutOfCache(e *codec.ServerError) bool {
	return e.Type == "validation_error" && strings.HasPrefix(e.Message, "Sequence ") &&
		strings.HasSuffix(e.Message, " KV cache exhausted even after preempting all running sequences.")
}

// compressionStatus returns the status, 400 to 599, that e, an error a
// server sent inside its stream typed "context_compression_error", names
// at the start of its message as Echo's HTTPError writes itself:
// "code=413, message=…". LocalAI compresses a chat's conversation again
// after each round of its own MCP calls, inside the 200 stream, and
// writes a failure so (core/http/endpoints/openai/chat.go, ChatEndpoint);
// before a stream the same failure is the answer's status
// (core/http/middleware/compression.go, CompressChatRequest): 413 for a
// conversation over the model's context even compressed, the request's,
// 500 for a compressor that failed. With a request error's status, the
// refusal counts as the request's, not the server's (see
// excludedFromBreaker). 0 for any other error.
func compressionStatus(e *openai.Error) int {
	m, ok := strings.CutPrefix(e.Message, "code=")
	if e.Type != "context_compression_error" || !ok {
		return 0
	}
	return leadingStatus(m, ",", 400, 599)
}

// faultTypes are the types, each an OpenAI error code's name, by which a
// server's error object names what it answers with a status before a
// stream, and the status it answers. apfel, which serves Apple's
// on-device Foundation Models, sends its role chunk before the model is
// asked, so the model's refusal of a prompt comes inside the 200 stream
// as {"error":{"code":null,"message":…,"param":null,"type":…}} then
// [DONE]: the guardrails' block "content_policy_violation" and a prompt
// over the context window "context_length_exceeded", each 400 before a
// stream; the system's rate limit on a process in the background, or the
// model busy with another request, "rate_limit_error", 429
// (Arthur-Ficial/apfel Sources/Handlers.swift, streamingResponse;
// Sources/Core/ApfelError.swift, openAIType and httpStatusCode).
var faultTypes = map[string]int{
	"content_policy_violation": http.StatusBadRequest,
	"context_length_exceeded":  http.StatusBadRequest,
	"rate_limit_error":         http.StatusTooManyRequests,
}

// faultTypeStatus returns the status that raw, an error object a server
// sent inside its stream, gives by its type (faultTypes). With a request
// error's status, the refusal counts as the request's, not the server's
// (see excludedFromBreaker); with 429, a limit reads as one. 0 for any
// other error.
func faultTypeStatus(raw string) int {
	if raw == "" {
		return 0
	}
	return faultTypes[gjson.Get(raw, "type").Str]
}

// genieXPromptTooLong is GenieX's SDK code for a prompt longer than the
// model's context (qualcomm/GenieX sdk/include/geniex.h,
// GENIEX_ERROR_LLM_GENERATION_PROMPT_TOO_LONG).
const genieXPromptTooLong = "-200103"

// genieXStatus returns 400 when e is GenieX's refusal of a prompt longer
// than the model's context, sent inside its 200 stream. GenieX's local
// server begins its streamed /v1/completions before the model has read
// the prompt and sends a failure as {"code":<its SDK code>,"error":
// "SDKError(<message>)"}, then ends the body (qualcomm/GenieX
// cli/server/handler/completion.go, streamCompletion); the same prompt
// answered whole is refused 400 context_length_exceeded
// (writeCompletionPromptTooLong). With that status, the refusal counts as
// the request's, not the server's (see excludedFromBreaker). 0 for any
// other error: a generation that failed is the server's.
func genieXStatus(e *codec.ServerError) int {
	if e.Code != genieXPromptTooLong || !strings.HasPrefix(e.Raw, `"SDKError(`) {
		return 0
	}
	return http.StatusBadRequest
}

// lmStudioStatus returns 404 when raw, an error a server answered with
// status 200, is LM Studio's words for a path it does not serve: its
// server answers any such request 200 application/json with
// {"error":"Unexpected endpoint or method. (<method> <path>)"}, and logs
// "Returning 200 anyway" (lmstudio-ai/lmstudio-bug-tracker#618, #2085).
// A client whose base URL lacks /v1, or that asks another server's path
// (/v1/completion, /infill, /v1/fim/completions), meets it; another
// server answers that 404. With that status, a route's wrong path counts
// as the request's, not the server's (see excludedFromBreaker). 0 for
// any other error.
func lmStudioStatus(raw string) int {
	const prefix = `"Unexpected endpoint or method. (`
	if !strings.HasPrefix(raw, prefix) || !strings.HasSuffix(raw, `)"`) {
		return 0
	}
	return http.StatusNotFound
}

// lmStudioEngineStatus returns the status, 400 to 499, that apiErr, an
// error a server sent inside its stream with no type or code, names as LM
// Studio words its engine's refusal of a request: "Engine protocol
// predict request returned <status>: " and the engine's error. LM Studio
// sends its 200 event stream before its llama.cpp engine reads the
// request and passes the engine's answer on as an event named error; the
// engine's 400 for a JSON schema its grammar converter cannot take ("JSON
// schema conversion failed: Pattern must start with '^' and end with
// '$'", a schema in response_format or a tool's parameters) comes so
// (lmstudio-ai/lmstudio-bug-tracker#2168, #2197, LM Studio 0.4.19 and
// 0.4.20). With that status, the refusal counts as the request's, not
// the server's (see excludedFromBreaker). 0 for any other error: the
// engine's 500 is the server's, but for a chat template's refusal (see
// templateRefusalStatus).
func lmStudioEngineStatus(apiErr *openai.Error) int {
	rest, ok := untypedMessage(apiErr, "Engine protocol predict request returned ")
	if !ok {
		return 0
	}
	return leadingStatus(rest, ":", 400, 499)
}

// untypedMessage returns the rest of apiErr's message after prefix, when
// apiErr is an error a server sent inside its stream with no type or
// code, as LM Studio sends its own, and its message opens with prefix.
func untypedMessage(apiErr *openai.Error, prefix string) (rest string, ok bool) {
	if apiErr == nil || apiErr.Type != "" || apiErr.Code != "" {
		return "", false
	}
	return strings.CutPrefix(apiErr.Message, prefix)
}

// lmStudioOverflowStatus returns 400 when apiErr, an error a server sent
// inside its stream with no type or code, is LM Studio's refusal of a
// prompt over the context its model was loaded with: "Input does not fit
// in context length. The input has <n> tokens, but the context length
// only supports <m> tokens." LM Studio sends its 200 event stream before
// it reads the prompt and refuses it there, as an event named error
// (aaif-goose/goose#11318; lmstudio-ai/lmstudio-bug-tracker#2322). With
// that status, the refusal counts as the request's, not the server's (see
// excludedFromBreaker), as TabbyAPI's overflow inside its stream does
// (see codeStatus); a Router still asks its next route, whose context may
// be longer. 0 for any other error.
func lmStudioOverflowStatus(apiErr *openai.Error) int {
	rest, ok := untypedMessage(apiErr, "Input does not fit in context length. The input has ")
	if !ok {
		return 0
	}
	n, rest, ok := strings.Cut(rest, " tokens, but the context length only supports ")
	m, ok2 := strings.CutSuffix(rest, " tokens.")
	if !ok || !ok2 || !tokenCount(n) || !tokenCount(m) {
		return 0
	}
	return http.StatusBadRequest
}

// tokenCount reports whether s is a count of tokens as LM Studio writes one:
// decimal digits alone.
func tokenCount(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

// xllmStatus returns the status of the refusal that e, a bare line of
// text that ended a 200 event stream (see codec.ServerError's Text),
// states in xLLM's words. xLLM sends a streamed request's 200 headers
// before it looks at the request, and then writes any failure as its
// message alone (jd-opensource/xllm xllm/api_service/stream_call.h,
// StreamCall::finish_with_error): a model it does not serve (404), its
// limit of concurrent requests or of scheduled work (429: gRPC's
// RESOURCE_EXHAUSTED, as xLLM names it), a model put to sleep (503), and
// the request's own faults (400: INVALID_ARGUMENT). With a status under
// 500 other than 429, the refusal counts as the request's, not the
// server's (see excludedFromBreaker). 0 for any other error.
func xllmStatus(e *codec.ServerError) int {
	if !e.Text {
		return 0
	}
	if s, ok := xllmRefusals[e.Message]; ok {
		return s
	}
	return 0
}

// xllmRefusals are the messages of the failures xLLM writes into a
// streamed request's body, by the status they stand for: the
// INVALID_ARGUMENT of xllm/core/framework/request/request_params.cpp
// (RequestParams::verify_params) and xllm/core/distributed_runtime/
// llm_master.cpp (LLMMaster::generate_request, handle_request), and
// xllm/api_service/chat_service_impl.cpp and completion_service_impl.cpp
// (process_async_impl), as of xLLM's main of July 2026.
var xllmRefusals = map[string]int{
	"Model not supported": http.StatusNotFound,
	"The number of concurrent requests has reached the limit.": http.StatusTooManyRequests,
	"No available resources to schedule request":               http.StatusTooManyRequests,
	"Model is currently in sleep state.":                       http.StatusServiceUnavailable,
	"Prompt is empty":                                          http.StatusBadRequest,
	"Prompt is too long":                                       http.StatusBadRequest,
	"Invalid Prompt":                                           http.StatusBadRequest,
	"Failed to encode prompt":                                  http.StatusBadRequest,
	"Failed to encode stop sequence":                           http.StatusBadRequest,
	"Failed to construct prompt from messages":                 http.StatusBadRequest,
	"n should be greater than 0":                               http.StatusBadRequest,
	"n should be less than or equal to best_of":                http.StatusBadRequest,
	"stop size is too large":                                   http.StatusBadRequest,
	"temperature must be between 0.0 and 2.0":                  http.StatusBadRequest,
	"top_p must be between 0.0 and 1.0":                        http.StatusBadRequest,
	"logprobs is not supported with echo":                      http.StatusBadRequest,
	"logprobs must be between 0 and 2000":                      http.StatusBadRequest,
	"presence_penalty must be between -2.0 and 2.0":            http.StatusBadRequest,
	"frequency_penalty must be between 0.0 and 2.0":            http.StatusBadRequest,
}

// rtpLLMError reports whether e, an error a server sent inside its
// stream, is in RTP-LLM's own shape, {"error_code": N, "error_code_str":
// "N_NAME", "message": …} (alibaba/rtp-llm rtp_llm/server/misc.py,
// format_exception): its name begins with its code.
func rtpLLMError(e *codec.ServerError) bool {
	return e.Raw == "" && e.Code != "" && strings.HasPrefix(e.Type, e.Code+"_")
}

// rtpLLMStatus returns the status of e, an error in RTP-LLM's own shape
// (rtpLLMError) that its frontend sent inside its 200 event stream, which
// it begins before the engine has looked at the request, and in which it
// sends any exception (alibaba/rtp-llm rtp_llm/frontend/frontend_server.py,
// stream_response). Its codes are its own numbers, some of which read
// like statuses of the caller's: 499 CANCELLED_ERROR is its backend's RPC
// cancelled on the server's side (rtp_llm/cpp/model_rpc/
// model_rpc_client.py; a caller's own disconnect writes nothing). So
// only its categories say: 400 for a refusal of the request (see
// wire.RTPLLMRequestFault), which then counts as the request's, not the
// server's (see excludedFromBreaker); 429 for its limits of traffic and
// of concurrent requests (429 TRAFFIC_LIMIT_ERROR, 409
// CONCURRENCY_LIMIT_ERROR, which its frontend answers 429 before a
// stream: rtp_llm/frontend/frontend_app.py); 0 for any other error, its
// own failures, its capacity's, a cancel.
func rtpLLMStatus(e *codec.ServerError) int {
	switch {
	case wire.RTPLLMRequestFault(e.Code, e.Type):
		return http.StatusBadRequest
	case e.Code == "429" || e.Code == "409":
		return http.StatusTooManyRequests
	}
	return 0
}

// gigaChatErrors are the gigachat library's exceptions of a request's
// error or of a limit, by class name, with the status GigaChat answered
// (ai-forever/gigachat src/gigachat/exceptions.py: one class per status;
// ServerError, for any 5xx, and ResponseError, for any other, name none).
var gigaChatErrors = map[string]int{
	"BadRequestError":            http.StatusBadRequest,
	"AuthenticationError":        http.StatusUnauthorized,
	"ForbiddenError":             http.StatusForbidden,
	"NotFoundError":              http.StatusNotFound,
	"RequestEntityTooLargeError": http.StatusRequestEntityTooLarge,
	"UnprocessableEntityError":   http.StatusUnprocessableEntity,
	"RateLimitError":             http.StatusTooManyRequests,
}

// gpt2GigaStatus returns the status that raw, an error object a server
// sent inside a stream, names by the gigachat library's exception class
// as its type beside the code "stream_error": gpt2giga, which serves
// Sber's GigaChat API as OpenAI's chat API, begins its 200 event stream
// before GigaChat is asked, and writes any GigaChatException raised then
// as {"error": {"message": "Upstream service error", "type": <the class
// name>, "code": "stream_error"}} and data: [DONE] (ai-forever/gpt2giga
// src/gpt2giga/common/streaming.py, stream_chat_generator and
// stream_chat_completion_generator; tests/contracts/test_openai_contract.py),
// GigaChat's 422 for a prompt over the model's context among them. With
// that status, a refusal counts as the request's, not the server's (see
// excludedFromBreaker). 0 for any other error: ServerError, any class
// under another code (vLLM's "BadRequestError" with code 400, see
// namedStatus).
func gpt2GigaStatus(raw string) int {
	if gjson.Get(raw, "code").Str != "stream_error" {
		return 0
	}
	return gigaChatErrors[gjson.Get(raw, "type").Str]
}

// workerVLLMStatus returns the status vLLM answered that raw, an error
// object of RunPod's worker-vllm in place of a stream, names in its words
// (see codec.WorkerVLLMRelayed): vLLM's 400 for max_tokens past the
// model's context, relayed under 200, counts as the request's, not the
// route's (see excludedFromBreaker). 0 for any other error.
func workerVLLMStatus(raw string) int {
	s, _, _ := codec.WorkerVLLMRelayed(raw)
	return s
}
