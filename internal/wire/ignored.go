package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
)

// Fields a server ignores.
//
// llama.cpp's server, since its HTTP layer was split out of server.cpp
// (ggml-org/llama.cpp#17216, 17 November 2025), hands the body of a
// /v1/completions request to its engine without the OpenAI parameter
// check it ran before (oaicompat_completion_params_parse), which answered
// an error for a suffix ("Unsupported param: suffix") or an echo ("Only no
// echo is supported"). It now answers 200 and drops them: a
// fill-in-the-middle request gets a completion of its prompt alone, as if
// the code after the cursor were not there, and an echo request gets its
// answer without its prompt. Its /infill endpoint does fill-in-the-middle:
// the client sends a suffix there (see ToInfill). An echo, which no
// endpoint of that server does, it answers as the server did before: 400,
// with the field named, so that no wrong answer reaches the caller and a
// Router falls back.

// DroppedField returns the field of body, a completions request, that
// llama.cpp's server drops without saying so: "suffix" for a non-empty
// suffix, "echo" for echo true; "" if none.
func DroppedField(body []byte) string {
	if !bytes.Contains(body, []byte(`"suffix"`)) && !bytes.Contains(body, []byte(`"echo"`)) {
		return "" // most requests: no decoding
	}
	var r struct {
		Suffix string `json:"suffix"`
		Echo   bool   `json:"echo"`
	}
	if json.Unmarshal(body, &r) != nil {
		return ""
	}
	switch {
	case r.Suffix != "":
		return "suffix"
	case r.Echo:
		return "echo"
	}
	return ""
}

// IsCompletions reports whether req calls the completions API (not chat
// completions), whose body DroppedField reads.
func IsCompletions(req *http.Request) bool {
	p := strings.TrimSuffix(req.URL.Path, "/")
	return strings.HasSuffix(p, "/completions") && !strings.HasSuffix(p, "/chat/completions")
}

// Fields a server refuses under a server error's status.
//
// llama.cpp's server before #17216, and the servers still built on that
// code (ik_llama.cpp, whose Server header is "ik_llama.cpp"; Docker Model
// Runner's llama.cpp engine, docker/model-runner#403), refuse a suffix on
// /v1/completions with 500, "Unsupported param: suffix", and an echo with
// 500, "Only no echo is supported": a request error under a server
// error's status, which openai-go sends again twice and a breaker counts
// against a server that is well. The client sends a suffix so refused to
// the server's /infill (see ToInfill), and answers an echo so refused as
// what it is: 400, with no retry (see AsRequestError).

// The messages of llama.cpp's refusals of a field under 500: the
// parameter named after unsupportedParam, and an echo.
const (
	unsupportedParam = "Unsupported param: "
	onlyNoEcho       = "Only no echo is supported"
)

// LlamaCppRefused reports whether res, an error answer to a completions
// request, is a llama.cpp server's refusal of field ("suffix" or "echo";
// see DroppedField). It reads the body, bounded already
// (BoundErrorBody), and puts it back.
func LlamaCppRefused(res *http.Response, field string) bool {
	var says string
	switch field {
	case "suffix":
		says = unsupportedParam + field
	case "echo":
		says = onlyNoEcho
	}
	if says == "" || res == nil || res.Body == nil || res.StatusCode < 400 {
		return false
	}
	body, err := ErrorBody(res)
	return err == nil && bytes.Contains(body, []byte(says))
}

// AsRequestError makes res, an error answer under a server error's status
// to a request that server cannot serve, say what it is: 400 Bad Request,
// not to be sent again (X-Should-Retry: false), its body kept. It returns
// res.
func AsRequestError(res *http.Response) *http.Response {
	res.StatusCode, res.Status = http.StatusBadRequest, "400 Bad Request"
	return markRetry(res, false)
}

// AsGatewayError makes res, a gateway's answer under a request error's
// status to a request it could not send upstream, say what it is: 502 Bad
// Gateway, which openai-go sends again and a breaker counts. It returns
// res, its body kept.
func AsGatewayError(res *http.Response) *http.Response {
	res.StatusCode, res.Status = http.StatusBadGateway, "502 Bad Gateway"
	return res
}

// AsServerError makes res, a server's answer under a request error's
// status to a request it failed to serve, say what it is: 500 Internal
// Server Error, which openai-go sends again and a breaker counts. It
// returns res, its body kept.
func AsServerError(res *http.Response) *http.Response {
	res.StatusCode, res.Status = http.StatusInternalServerError, "500 Internal Server Error"
	return res
}

// AsUnavailable makes res, a server's answer under a request error's
// status to a request it had no capacity for, say what it is: 503
// Service Unavailable, which openai-go sends again and a breaker counts.
// It returns res, its body kept.
func AsUnavailable(res *http.Response) *http.Response {
	res.StatusCode, res.Status = http.StatusServiceUnavailable, "503 Service Unavailable"
	return res
}

// bifrostDoRequest is the message of Bifrost's error for a request it
// could not send to its provider: schemas.ErrProviderDoRequest
// (maximhq/bifrost core/schemas/provider.go), the connection refused,
// reset or closed before any byte of an answer.
const bifrostDoRequest = "failed to execute HTTP request to provider API"

// BifrostUpstreamFailure reports whether res is Bifrost's answer to a
// request it could not send to its provider, which a call that does not
// stream gets with 400, the status of a request error, and is_bifrost_error
// false (seen live, v1.4.19: "the server closed connection before returning
// the first response byte"; a stream gets 500). Sent again, such a request
// is answered once the provider is back; it says nothing against the
// request. It reads the body, bounded already (BoundErrorBody), and puts it
// back.
func BifrostUpstreamFailure(res *http.Response) bool {
	if res == nil || res.Body == nil || res.StatusCode != http.StatusBadRequest {
		return false
	}
	body, err := ErrorBody(res)
	var e struct {
		Bifrost *bool `json:"is_bifrost_error"`
		Error   struct{ Message string }
	}
	return err == nil && json.Unmarshal(body, &e) == nil && e.Bifrost != nil && e.Error.Message == bifrostDoRequest
}

// NotImplemented returns res marked not to be sent again when its status
// is 501 Not Implemented: the server does not do what the request asks,
// and would answer it the same again. llama.cpp's server answers so to
// fill-in-the-middle for a model without its tokens ("Infill is not
// supported by this model: prefix token is missing", "not_supported_error");
// openai-go sends every 5xx again, twice by default, each with its
// back-off.
func NotImplemented(res *http.Response) *http.Response {
	if res != nil && res.StatusCode == http.StatusNotImplemented {
		return markRetry(res, false)
	}
	return res
}

// Request errors under a server error's status.
//
// llama.cpp's server answers 400 only for a request its handlers reject
// with std::invalid_argument; what its OpenAI parameter parsing rejects
// with std::runtime_error reaches its exception handler and is answered
// 500 "server_error": in the build of August 2026, an image for a model
// without its projector ("image input is not supported"), tools without
// --jinja, json_schema beside a grammar, and, thrown by common/chat.cpp
// while the chat template is set up, a tool call in the request's history
// whose arguments are not JSON (the 2025 builds more: tools, messages or
// a tool_choice it cannot read); ik_llama.cpp answers so for more
// (n above 1, messages of the wrong shape, previous_response_id, and,
// its exception handler answering std::invalid_argument 500 too, a
// response_format or a schema its grammar converter refuses). Sent
// again, such a request gets the same answer; counted by a breaker, a few
// of them open it on a server that is well. The client tells them by
// their message (llamaCppRequestErrors, from the servers' sources) and
// answers them as what they are (see AsRequestError).
// A chat template's refusal of the request's messages is one of them too,
// told by its message alone, as relays pass it on (see
// ChatTemplateRefusal).

// llamaCppRequestErrors are the messages of the request errors llama.cpp's
// server and ik_llama.cpp answer with 500: tools/server/server-common.cpp
// (ggml-org/llama.cpp, August 2026) and examples/server/server-common.cpp,
// server-chat.cpp, common/chat.cpp, common/json-schema-to-grammar.cpp
// (ik_llama.cpp@8337e4cd).
var llamaCppRequestErrors = []string{
	"Only one completion choice is allowed",
	onlyNoEcho,
	unsupportedParam,
	"param requires --jinja flag", // tools, tool_choice
	"Cannot use both json_schema and grammar",
	"Cannot use custom grammar constraints with tools",
	// A schema the grammar converter cannot take (a pattern not anchored,
	// a $ref it cannot resolve), in response_format or a tool's
	// parameters: common/json-schema-to-grammar.cpp (check_errors), the
	// chat template's parser generation in common/chat.cpp.
	"JSON schema conversion failed",
	// A response_format type the server does not know (ik_llama.cpp
	// before it read json_schema: ikawrakow/ik_llama.cpp#778).
	"response_format type must be one of",
	`Either "json_schema" or "grammar" can be specified, but not both`,
	"Cannot specify grammar with tools",
	"Cannot have 2 or more assistant messages at the end of the list",
	"input is not supported - hint:", // an image, audio or video without the model's projector
	"Multimodal data provided, but model does not support multimodal requests",
	`"prompt" is required`,
	`"prompt" must not be empty`,
	`"prompt" elements must be`,
	"'messages' is required",
	"Expected 'messages' to be an array",
	"Expected 'content' to be a string or an array",
	"All non-assistant messages must contain 'content'",
	"Assistant message must contain either 'content' or 'tool_calls'",
	"Assistant response prefill is incompatible with enable_thinking",
	"logprobs is not supported with tools + stream",
	"top_logprobs requires logprobs",
	"unsupported content[].type",
	"does not support 'previous_response_id'",
	"'input' is required",
	"'input' must be a string or array of objects",
	"'tools' must be an array of objects",
	"Invalid uri",
	"uri must be base64 encoded",
	"Invalid base64 value",
	"Invalid image_url.url",
	// A media URL that is no base64 data URL of an image, in the builds
	// that read image_url and other media through one handler (2026:
	// server-common.cpp, handle_media); a URL whose download failed is the
	// image host's or the network's failure, and stays the server's.
	"Invalid url value",
	"Invalid url format: ",
	"url must be base64 encoded",
	"image_url.url must be base64 encoded",
	"input_audio.format must be either",
	// The request's history, tools or tool_choice that common/chat.cpp
	// cannot read: a tool call's arguments that are not JSON (2025 and
	// 2026 builds, ggml-org/llama.cpp#25510; see ToolArgumentsRefused); a
	// tool's description of null (one left out is sent again filled in:
	// see FillTools), messages or tools of the wrong shape, a tool_choice
	// it does not know (2025 builds; ik_llama.cpp); and
	// chat_template_kwargs' enable_thinking given as a string
	// (server-common.cpp, oaicompat_chat_params_parse).
	toolArgumentsNotJSON,
	"Failed to parse tools: ",
	"Failed to parse messages: ",
	"Invalid tool_choice: ",
	`invalid type for "enable_thinking"`,
}

// LlamaCppRequestError reports whether res is a request error that
// llama.cpp's server or ik_llama.cpp (by its Server header) answered with
// 500 (see llamaCppRequestErrors). It reads the body, bounded already
// (BoundErrorBody), and puts it back.
func LlamaCppRequestError(res *http.Response) bool {
	if res == nil || res.StatusCode != http.StatusInternalServerError {
		return false
	}
	if s := strings.ToLower(res.Header.Get("Server")); !strings.HasPrefix(s, "llama.cpp") && !strings.HasPrefix(s, "ik_llama.cpp") {
		return false
	}
	e, ok := errorOf(res, http.StatusInternalServerError)
	return ok && e.Type == "server_error" && says(e.Message, llamaCppRequestErrors)
}

// FieldDropper returns which server that drops the fields DroppedField
// names made res, as its headers say: LlamaCpp (Server: llama.cpp),
// KoboldCpp (Server: ConcedoLlamaForKoboldServer), CLIProxyAPI (an
// X-Cpa-Trace-Id header) or LlamaBox (Server: llama-box/<its version>);
// "" for another.
//
// GPUStack's llama-box (gpustack/llama-box, llama-box/httpserver.hpp)
// has an OpenAI server of its own on llama.cpp, whose completions request
// reads neither a suffix nor an echo (neither key is in the server, as of
// November 2025), and no /infill: a fill-in-the-middle request gets a
// completion of its prompt alone, an echo the completion without it.
//
// KoboldCpp (LostRuins/koboldcpp) has never read a suffix or an echo: its
// /v1/completions answers a fill-in-the-middle request with a completion
// of its prompt alone (seen live with 1.76; its request handling of 2025
// reads neither), and it does fill-in-the-middle nowhere. CLIProxyAPI
// (router-for-me/CLIProxyAPI) answers /v1/completions by asking its
// upstream's chat API with the prompt as a user message
// (convertCompletionsRequestToChatCompletions, since its completions
// endpoint came in August 2025), which has no suffix and no echo (seen
// live with its build of August 2026, which names itself by
// X-Cpa-Trace-Id since July 2026).
func FieldDropper(res *http.Response) string {
	if res == nil {
		return ""
	}
	switch s := strings.ToLower(res.Header.Get("Server")); {
	case strings.HasPrefix(s, "llama.cpp"):
		return LlamaCpp
	case strings.HasPrefix(s, "concedollamaforkoboldserver"):
		return KoboldCpp
	case res.Header.Get("X-Cpa-Trace-Id") != "":
		return CLIProxyAPI
	case strings.HasPrefix(s, "llama-box/"):
		return LlamaBox
	}
	return ""
}

// EchoDropper returns which server made res, a 2xx answer to a
// completions request with echo, as its headers say, if it is one that
// drops the echo but not a suffix: Llamafile (Server: llamafile/<its
// version>), whose own server (llamafile/server/v1_completions.cpp,
// llamafiler) reads echo and never uses it, whole or streamed, and
// refuses a suffix with 400 itself; "" for another.
func EchoDropper(res *http.Response) string {
	if res != nil && strings.HasPrefix(strings.ToLower(res.Header.Get("Server")), "llamafile/") {
		return Llamafile
	}
	return ""
}

// TGIRouter reports whether res, a 2xx answer to a completions request,
// carries the x-compute-type header that Hugging Face's
// text-generation-inference (TGI) router sends on every answer
// (router/src/server.rs: its COMPUTE_TYPE, "gpu+optimized" unless set),
// and so do forks of that router: LoRAX (predibase/lorax
// router/src/server.rs, "gpu+optimized" always). TGI's CompletionRequest
// has no echo, which serde drops (router/src/lib.rs), and its
// completions never ask for the full text (server.rs, completions:
// return_full_text None): an echo request gets its answer without its
// prompt, whole or streamed. A suffix TGI refuses itself, with 422
// ("Suffix is not supported and can be achieved by preprocessing the
// prompt.", since its completions came, #1527, February 2024): a 2xx
// answer to one under that header comes from a fork that took it, as
// LoRAX does and never uses it (router/src/lib.rs, CompletionRequest,
// #[allow(dead_code)]). LoRAX gives echo to return_full_text, which its
// whole answer honours (server.rs, generate) and its stream drops (see
// LoRAXAnswer).
func TGIRouter(res *http.Response) bool {
	return res != nil && res.Header.Get("X-Compute-Type") != ""
}

// LoRAXAnswer reports whether start, the start of a 2xx answer to a
// completions request or of one of its stream's events, comes from
// LoRAX by its shape: id and model the string "null" and created 0, in
// serde's order of its CompletionResponse and CompletionStreamResponse
// (predibase/lorax router/src/lib.rs). Its stream's chunks carry each
// token's text alone: the prompt an echo asks for goes only into the
// last StreamResponse's generated_text, which they never write
// (router/src/server.rs, generate_stream_with_callback; lib.rs,
// From<StreamResponse> for CompletionStreamResponse).
func LoRAXAnswer(start []byte) bool { return loraxAnswer.Match(start) }

var loraxAnswer = regexp.MustCompile(`^\s*\{"id":"null","object":"text_completion","created":0,"model":"null"`)

// LlamaCppAnswer reports whether start, the start of a 2xx answer whose
// headers do not name llama.cpp's server (see FieldDropper), shows that
// server made it all the same: behind a relay that passes on none of its
// headers (one-api streams under headers of its own) or a reverse proxy
// that sets its own Server (nginx does by default). llama.cpp's
// system_fingerprint ("b" + its build number + "-" + its commit) is on
// every chunk and answer it sends. The client looks for it in the first
// event of a stream, or the first PeekBytes of a whole answer, sent in
// answer to a completions request with a suffix, which would otherwise
// reach the caller made without it. A relay that rebuilds a whole answer
// from its own types drops the fingerprint (one-hub, seen live in 2026);
// llama.cpp's completion id then tells the server: "chatcmpl-" and 32
// letters and digits on a text_completion, where other servers give a
// text completion "cmpl-" and an id (OpenAI, vLLM, Ollama,
// llama-cpp-python) or a bare UUID (SGLang).
func LlamaCppAnswer(start []byte) bool {
	return llamaCppFingerprint.Match(start) || llamaCppCompletionID.Match(start) && textCompletion.Match(start)
}

var (
	// llamaCppFingerprint matches llama.cpp's system_fingerprint.
	llamaCppFingerprint = regexp.MustCompile(`"system_fingerprint"\s*:\s*"b[0-9]+-`)
	// llamaCppCompletionID matches the id llama.cpp's server gives every
	// answer (gen_chatcmplid), a text completion's too.
	llamaCppCompletionID = regexp.MustCompile(`"id"\s*:\s*"chatcmpl-[0-9A-Za-z]{32}"`)
	textCompletion       = regexp.MustCompile(`"object"\s*:\s*"text_completion"`)
)

// LocalAIAnswer reports whether start, the start of a 2xx answer to a
// chat or completions request or of one of its stream's events, comes
// from LocalAI (mudler/LocalAI). It sends no header of its own that names
// it; its answers and events are Go's encoding of its response type,
// which begins {"created":N,"object":"text_completion","id":"<UUID>"
// (the same since 2023; "chat.completion" or "chat.completion.chunk" for
// chat). Its completions endpoint has no suffix, whatever the backend
// (its request type has no such field): a fill-in-the-middle request
// gets a completion of its prompt alone, without a word (seen live,
// 2026).
func LocalAIAnswer(start []byte) bool { return localAIAnswer.Match(start) }

var localAIAnswer = regexp.MustCompile(`^\s*\{"created":[0-9]+,"object":"(text_completion|chat\.completion|chat\.completion\.chunk)","id":"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"`)

// KoboldCppAnswer reports whether start, the start of a 2xx answer to a
// completions request or of one of its stream's events, comes from
// KoboldCpp by its shape, behind a relay that passes on none of its
// headers: Python's encoding of its answer, which begins {"id": "cmpl-A1",
// "object": "text_completion" whole, {"id": "koboldcpp", ... in a stream
// (its ids until LostRuins/koboldcpp#2015, March 2026; later ones are
// told by their Server header only).
func KoboldCppAnswer(start []byte) bool { return koboldCppAnswer.Match(start) }

var koboldCppAnswer = regexp.MustCompile(`^\s*\{"id": "(koboldcpp|cmpl-A1)", "object": "text_completion"`)

// MistralRsAnswer reports whether start, the start of a 2xx answer to a
// completions request or of one of its stream's events, comes from
// mistral.rs (EricLBuehler/mistral.rs) by its shape: serde's encoding of
// its response types, which begins {"id":"<its sequence's number>",
// "choices":[ and carries system_fingerprint "local" (mistralrs-core's
// SYSTEM_FINGERPRINT), under no header that names it. Its completions
// request takes a suffix but never gives it to the model: a whole answer
// is the completion of the prompt alone with the suffix appended
// (mistralrs-core/src/sequence.rs, add_completion_choice_to_group), a
// stream the completion alone (its chunks are made in
// pipeline/sampling.rs, without it).
func MistralRsAnswer(start []byte) bool {
	return mistralRsAnswer.Match(start) && bytes.Contains(start, []byte(`"system_fingerprint":"local"`))
}

var mistralRsAnswer = regexp.MustCompile(`^\s*\{"id":"[0-9]+","choices":\[`)

// LMDeployAnswer reports whether start, the start of a 2xx answer to a
// completions request or of one of its stream's events, comes from
// LMDeploy's api_server (InternLM/lmdeploy) by its shape, under uvicorn's
// Server header: its text completion's id is the request's session_id
// ("-1" unless the request gave one; a number of the server's count
// before 0.11), then object, created and model in that order, pydantic's
// order of CompletionStreamResponse and CompletionResponse
// (lmdeploy/serve/openai/protocol.py), spaced by Python's json.dumps in a
// stream and not in a whole answer (Starlette's JSONResponse). Its
// CompletionRequest takes suffix and echo and nothing reads either
// (lmdeploy/serve/openai/endpoints/completions.py, August 2026): a
// fill-in-the-middle request gets a completion of its prompt alone, an
// echo request its answer without its prompt, whole or streamed.
func LMDeployAnswer(start []byte) bool { return lmdeployAnswer.Match(start) }

var lmdeployAnswer = regexp.MustCompile(`^\s*\{"id": ?"-?[0-9]+", ?"object": ?"text_completion", ?"created": ?[0-9]+, ?"model": ?"`)

// TextGenWebUIAnswer reports whether start, the start of a 2xx answer to
// a completions request or of one of its stream's events, comes from the
// API of text-generation-webui (oobabooga/text-generation-webui,
// modules/api, earlier extensions/openai) by its shape, under uvicorn's
// Server header: its text completion's id is "cmpl-" and the time in
// nanoseconds, then object, created, model and a system_fingerprint of
// null in that order (completions_common), spaced by Python's json.dumps
// in a stream and not in a whole answer (Starlette's JSONResponse). It
// never gives a suffix to the model: it sends it as the text of a
// stream's last chunk and at the end of a whole answer's text, after a
// completion of the prompt alone.
func TextGenWebUIAnswer(start []byte) bool { return textGenWebUIAnswer.Match(start) }

var textGenWebUIAnswer = regexp.MustCompile(`^\s*\{"id": ?"cmpl-[0-9]{16,}", ?"object": ?"text_completion", ?"created": ?[0-9]+, ?"model": ?"(?:[^"\\]|\\.)*", ?"system_fingerprint": ?null`)

// TabbyAPIAnswer reports whether start, the start of a 2xx answer to a
// completions request or of one of its stream's events, comes from
// TabbyAPI (theroyallab/tabbyAPI) by its shape, under uvicorn's Server
// header: a stream's text completion chunk begins {"id":
// "chatcmpl-<32 hex digits>", "object": "text_completion", "choices": [
// (Python's json.dumps of _compose_serialize_stream_chunk, its model as
// model_name), a whole answer {"id":"cmpl-<32 hex digits>","choices":[
// {"index":N,"finish_reason": (pydantic's order of CompletionResponse and
// CompletionRespChoice; endpoints/OAI/utils/completion.py,
// types/completion.py). Its request takes a suffix and an echo, "Not
// parsed. Only used for OAI compliance." (endpoints/OAI/types/common.py):
// a fill-in-the-middle request gets a completion of its prompt alone, an
// echo request its answer without its prompt. A stream's chatcmpl- id
// would pass for llama.cpp's server's (see LlamaCppAnswer), which does
// fill-in-the-middle at /infill, an endpoint TabbyAPI does not have.
func TabbyAPIAnswer(start []byte) bool { return tabbyAPIAnswer.Match(start) }

var tabbyAPIAnswer = regexp.MustCompile(`^\s*\{"id": ?"(?:chatcmpl-[0-9a-f]{32}", ?"object": ?"text_completion", ?"choices": ?\[|cmpl-[0-9a-f]{32}", ?"choices": ?\[\{"index": ?[0-9]+, ?"finish_reason":)`)

// MLXLMAnswer reports whether start, the start of a 2xx answer to a
// completions request or of one of its stream's events, comes from
// mlx_lm.server (ml-explore/mlx-lm, mlx_lm/server.py) by its shape, under
// Python's BaseHTTP Server header: {"id": "cmpl-<UUID>",
// "system_fingerprint": "<mlx-lm's version>-..." first (generate_response,
// written by Python's json.dumps, whole or streamed). It reads neither a
// suffix nor an echo (handle_text_completions takes the prompt alone): a
// fill-in-the-middle request gets a completion of its prompt alone, an
// echo request its answer without its prompt.
func MLXLMAnswer(start []byte) bool { return mlxLMAnswer.Match(start) }

var mlxLMAnswer = regexp.MustCompile(`^\s*\{"id": ?"cmpl-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", ?"system_fingerprint": ?"`)

// VLLMMLXAnswer reports whether start, the start of a 2xx answer to a
// completions request or of one of its stream's events, comes from
// vllm-mlx (waybarrios/vllm-mlx) by its shape, under uvicorn's Server
// header: a text completion whose id is "cmpl-" and 8 hex digits, object
// next (vllm_mlx/server.py, stream_completion, a new id for each chunk;
// api/models.py, CompletionResponse). Its CompletionRequest has no
// suffix and no echo, which pydantic drops: a fill-in-the-middle request
// gets a completion of its prompt alone, an echo request its answer
// without its prompt.
func VLLMMLXAnswer(start []byte) bool { return vllmMLXAnswer.Match(start) }

var vllmMLXAnswer = regexp.MustCompile(`^\s*\{"id": ?"cmpl-[0-9a-f]{8}", ?"object": ?"text_completion"`)

// FastChatAnswer reports whether start, the start of a 2xx answer to a
// completions request or of one of its stream's events, comes from
// FastChat's OpenAI API server (lm-sys/FastChat,
// fastchat/serve/openai_api_server.py) or DeepSpeed-MII's, adapted from
// it (deepspeedai/DeepSpeed-MII, mii/entrypoints/openai_api_server.py),
// by its shape, under uvicorn's Server header: a text completion whose
// id is "cmpl-" and a shortuuid (22 characters of its alphabet, which
// has no 0, 1, I, O or l), then object and model, with created between
// them in a whole answer only (a stream's chunks are written by
// pydantic's model_dump_json(exclude_unset=True), which leaves out the
// defaults). Both take a suffix and never read it: a fill-in-the-middle
// request gets a completion of its prompt alone. (FastChat gives its
// worker the echo; DeepSpeed-MII drops it too, but the two cannot be told
// apart, so an echo is not refused.)
func FastChatAnswer(start []byte) bool { return fastChatAnswer.Match(start) }

var fastChatAnswer = regexp.MustCompile(`^\s*\{"id":"cmpl-[2-9A-HJ-NP-Za-km-z]{22}","object":"text_completion",(?:"created":[0-9]+,)?"model":"`)

// MAXAnswer reports whether start, the start of a 2xx answer to a
// completions request or of one of its stream's events, comes from
// Modular MAX's OpenAI router (`max serve`; modular/modular
// max/python/max/serve/router/openai_routes.py) by its shape, under
// uvicorn's Server header: a stream's chunk begins {"id":"<the request's
// id, 32 hex digits>_0","created":N,"model": (its own
// CompletionStreamResponse, members in that order), a whole answer
// {"id":"<32 hex digits>","choices":[{"finish_reason":…,"index":N,
// "logprobs":{"text_offset":null,"token_logprobs":[ (openai-python's
// Completion, written by FastAPI with its nulls; MAX never sets a text
// offset). Its request takes every field of openai-python's, suffix and
// echo among them (schemas/openai.py), and reads no suffix; echo only
// marks the log probabilities (pipelines/lib/tokenizer.py, new_context):
// a fill-in-the-middle request gets a completion of its prompt alone, an
// echo request its answer without its prompt, whole or streamed.
func MAXAnswer(start []byte) bool { return maxAnswer.Match(start) }

// TransformersServeAnswer reports whether start, the start of a 2xx
// answer to a completions request or of one of its stream's events,
// comes from Hugging Face's `transformers serve` (huggingface/transformers
// src/transformers/cli/serving/completion.py) by its shape, under
// uvicorn's Server header: openai-python's Completion written compact
// without its nulls, {"id":"<the request's id, a UUID>","choices":[{
// then "index" first in a stream's text chunk (no finish_reason, no
// logprobs: pydantic's exclude_none, utils.py chunk_to_sse), or
// "finish_reason" then "index" in a whole answer (Starlette's
// JSONResponse of model_dump(exclude_none=True)). Its handler reads a
// suffix but never gives it to the model, which completes the prompt
// alone (handle_request); the suffix is then sent as one more chunk's
// text, or appended to a whole answer's text, as if the model had
// written it. An echo it refuses with 422 (UNUSED_LEGACY_COMPLETION_FIELDS).
func TransformersServeAnswer(start []byte) bool { return transformersServeAnswer.Match(start) }

var transformersServeAnswer = regexp.MustCompile(`^\s*\{"id":"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}","choices":\[\{(?:"finish_reason":"[a-z_]+",)?"index":[0-9]+,"text":"`)

var maxAnswer = regexp.MustCompile(`^\s*\{"id":"[0-9a-f]{32}(?:_0","created":[0-9]+,"model":"|","choices":\[\{"finish_reason":(?:null|"[a-z_]*"),"index":[0-9]+,"logprobs":\{"text_offset":null,"token_logprobs":\[)`)

// StreamEchoDropper returns which server made start, the first event of
// a stream sent in answer to a completions request with echo whose
// headers do not name it, if it is one that drops the echo of a stream:
// MistralRs (see MistralRsAnswer), which puts the prompt before a whole
// answer's text (mistralrs-core/src/sequence.rs,
// add_completion_choice_to_group) and never in a stream, whose chunks
// are made from the completion alone (pipeline/sampling.rs,
// add_streaming_completion_chunk_choice_to_group), LMDeploy, TabbyAPI,
// MLXLM, VLLMMLX or MAX (see WholeEchoDropper), LoRAX (see
// LoRAXAnswer), whose whole answer puts the prompt first,
// LlamaCppPython (see LlamaCppPythonAnswer), which puts it there only
// after its stream has returned (llama_cpp/llama.py, _create_completion),
// or LocalAI (see LocalAIAnswer), which puts it before the final
// prediction a stream never sends (core/backend/llm.go, Finetune); ""
// for any other.
func StreamEchoDropper(start []byte) string {
	switch {
	case MistralRsAnswer(start):
		return MistralRs
	case LoRAXAnswer(start):
		return LoRAX
	case LlamaCppPythonAnswer(start):
		return LlamaCppPython
	case LocalAIAnswer(start):
		return LocalAI
	}
	return WholeEchoDropper(start)
}

// WholeEchoDropper returns which server made start, the start of a whole
// 2xx answer to a completions request with echo whose headers do not name
// it, if it is one that drops the echo of a whole answer: LMDeploy (see
// LMDeployAnswer), TabbyAPI (see TabbyAPIAnswer), MLXLM (see
// MLXLMAnswer), VLLMMLX (see VLLMMLXAnswer), MAX (see MAXAnswer), Ollama
// (see OllamaAnswer) or Xinference (see XinferenceAnswer), which read no
// echo at all or give it only to the log probabilities; "" for any other.
func WholeEchoDropper(start []byte) string {
	switch {
	case LMDeployAnswer(start):
		return LMDeploy
	case TabbyAPIAnswer(start):
		return TabbyAPI
	case MLXLMAnswer(start):
		return MLXLM
	case VLLMMLXAnswer(start):
		return VLLMMLX
	case MAXAnswer(start):
		return MAX
	case OllamaAnswer(start):
		return Ollama
	case XinferenceAnswer(start):
		return Xinference
	}
	return ""
}

// The servers that drop a completions request's suffix (or, mistral.rs,
// llama-cpp-python and LocalAI, a stream's echo) without a word, as the
// refusals name them.
const (
	LlamaCpp    = "llama.cpp's server"
	LocalAI     = "LocalAI"
	KoboldCpp   = "KoboldCpp"
	CLIProxyAPI = "CLIProxyAPI"
	MistralRs   = "mistral.rs"
	LMDeploy    = "LMDeploy"
	TextGen     = "text-generation-webui"
	TabbyAPI    = "TabbyAPI"
	MLXLM       = "mlx_lm.server"
	VLLMMLX     = "vllm-mlx"
	Llamafile   = "llamafile"
	FastChat    = "FastChat or DeepSpeed-MII"
	LlamaBox    = "llama-box"
	MAX         = "Modular MAX"
	// TransformersServe is Hugging Face's `transformers serve`.
	TransformersServe = "transformers serve"
	TGI               = "TGI"
	LoRAX             = "LoRAX"
	// TGIFork is a server whose headers are TGI's router's (see
	// TGIRouter) and which took a suffix, which TGI refuses.
	TGIFork = "LoRAX or another fork of TGI's router"
	// LlamaCppPython is llama-cpp-python's server (see
	// LlamaCppPythonAnswer).
	LlamaCppPython = "llama-cpp-python's server"
	// Ollama is Ollama's OpenAI compatibility (see OllamaAnswer).
	Ollama = "Ollama"
	// Xinference is Xinference's server (see XinferenceAnswer).
	Xinference = "Xinference"
)

// SuffixDropper returns which server made start, the start of a 2xx
// answer to a completions request with a suffix whose headers do not
// name it, if it is one that dropped the suffix: LlamaCpp (see
// LlamaCppAnswer), LocalAI (see LocalAIAnswer), KoboldCpp (see
// KoboldCppAnswer), MistralRs (see MistralRsAnswer), LMDeploy (see
// LMDeployAnswer), TextGen (see TextGenWebUIAnswer), TabbyAPI (see
// TabbyAPIAnswer), MLXLM (see MLXLMAnswer), VLLMMLX (see
// VLLMMLXAnswer), FastChat (see FastChatAnswer), MAX (see MAXAnswer),
// LoRAX (see LoRAXAnswer), TransformersServe (see
// TransformersServeAnswer), LlamaCppPython (see LlamaCppPythonAnswer)
// or Xinference (see XinferenceAnswer); "" for any other.
func SuffixDropper(start []byte) string {
	switch {
	case TabbyAPIAnswer(start): // before LlamaCppAnswer, which its stream's id passes
		return TabbyAPI
	case LlamaCppAnswer(start):
		return LlamaCpp
	case LocalAIAnswer(start):
		return LocalAI
	case KoboldCppAnswer(start):
		return KoboldCpp
	case MistralRsAnswer(start):
		return MistralRs
	case LMDeployAnswer(start):
		return LMDeploy
	case TextGenWebUIAnswer(start):
		return TextGen
	case MLXLMAnswer(start):
		return MLXLM
	case VLLMMLXAnswer(start):
		return VLLMMLX
	case FastChatAnswer(start):
		return FastChat
	case MAXAnswer(start):
		return MAX
	case LoRAXAnswer(start):
		return LoRAX
	case TransformersServeAnswer(start):
		return TransformersServe
	case LlamaCppPythonAnswer(start):
		return LlamaCppPython
	case XinferenceAnswer(start):
		return Xinference
	}
	return ""
}

// PeekBytes bounds how far ahead of the caller the client reads a whole
// answer for SuffixDropper.
const PeekBytes = 64 << 10

// RefuseDropped closes res, a 2xx answer to a request whose field its
// server dropped, server (LlamaCpp, LocalAI, KoboldCpp, CLIProxyAPI,
// SGLang, MistralRs, LMDeploy, TextGen, TabbyAPI, MLXLM, VLLMMLX,
// Llamafile, FastChat, LlamaBox, MAX, TGI, LoRAX, TGIFork,
// TransformersServe, LlamaCppPython, Ollama or Xinference), and returns
// the answer llama.cpp's server gave before it dropped the field: 400, an
// OpenAI error body naming it, and no retry (x-should-retry: false).
func RefuseDropped(res *http.Response, server, field string) *http.Response {
	if res.Body != nil {
		_ = res.Body.Close()
	}
	msg := DroppedDetail(server, field)
	switch {
	case field == "suffix" && server == LlamaCpp:
		msg += ": fill-in-the-middle is its /infill endpoint"
	case field == "suffix" && server == LlamaCppPython:
		msg += ": it gives the model no fill-in-the-middle tokens"
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "param": field, "code": "unsupported_param",
	}})
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-Should-Retry", "false")
	if s := res.Header.Get("Server"); s != "" {
		h.Set("Server", s)
	}
	return &http.Response{
		Status: "400 Bad Request", StatusCode: http.StatusBadRequest,
		Proto: res.Proto, ProtoMajor: res.ProtoMajor, ProtoMinor: res.ProtoMinor,
		Header: h, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)),
		Request: res.Request,
	}
}

// DroppedDetail says that server drops field on /v1/completions, and for
// SGLang why (see SGLangServers).
func DroppedDetail(server, field string) string {
	d := server + " ignores " + field + " on /v1/completions"
	if server == SGLang {
		d += " without --completion-template"
	}
	return d
}
