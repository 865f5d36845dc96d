package wire

import "net/http"

// Restated returns res, an answer of a server or gateway whose status
// says another kind of failure than its body does, under the status of
// what its body says, so that openai-go sends it again, or not, and a
// breaker counts it, or not, as it should; any other answer unchanged.
// A request error under 500 becomes a 400, not sent again: llama.cpp's
// server's (LlamaCppRequestError), KServe's (KServeRequestError),
// llama-cpp-python's server's (LlamaCppPythonRequestError; asked is the
// body of a completions request as the caller made it, nil for another
// API), FastDeploy's (FastDeployRequestError), DeepInfra's prompt over
// its model's input (DeepInfraRequestError), a chat template's refusal
// of the request's messages (ChatTemplateRefusal), an image for a model
// served without its projector, passed on by a relay
// (ProjectorMissing), a tool call's arguments that are not JSON in the
// request's history, passed on by a reverse proxy (ToolArgumentsRefused),
// these three also wrapped in a gateway's own error (LiteLLM's; see
// refusalMessage),
// RTP-LLM's
// (RTPLLMRequestError), Apigee's refusal of a body past a
// JSONThreatProtection policy's limits (ApigeeThreatRefusal); and a
// request every
// provider refused with 400 under TensorZero's 502
// (TensorZeroRequestError). A gateway's 400 for a
// request its provider never answered becomes a 502: Bifrost's (BifrostUpstreamFailure), Cloudflare AI Gateway's
// (CloudflareUpstreamFailure). A worker's failure under 400 becomes a
// 500: FastChat's (FastChatServerError), ScaleLLM's
// (ScaleLLMServerError). A server's refusal for want of capacity under
// 403 becomes a 503: Chitu's (ChituOverload); so does a model the server
// failed to load under 400: LM Studio's (LMStudioLoadFailure). Each reads
// the body, bounded already (BoundErrorBody), only under its own status,
// and puts it back.
func Restated(res *http.Response, asked []byte) *http.Response {
	switch {
	case LlamaCppRequestError(res) || KServeRequestError(res) || LlamaCppPythonRequestError(res, asked) || FastDeployRequestError(res) || DeepInfraRequestError(res) ||
		ChatTemplateRefusal(res) || ProjectorMissing(res) || ToolArgumentsRefused(res) || TensorZeroRequestError(res) || RTPLLMRequestError(res) || ApigeeThreatRefusal(res):
		return AsRequestError(res)
	case BifrostUpstreamFailure(res) || CloudflareUpstreamFailure(res):
		return AsGatewayError(res)
	case FastChatServerError(res) || ScaleLLMServerError(res):
		return AsServerError(res)
	case ChituOverload(res) || LMStudioLoadFailure(res):
		return AsUnavailable(res)
	}
	return res
}
