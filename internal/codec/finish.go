package codec

import (
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3"
)

// Finish reasons beyond OpenAI's (stop, length, tool_calls,
// content_filter) by which a server says that it stopped an answer
// itself, before the answer's end, and then ends the stream as if the
// answer were whole ([DONE] and all):
//   - "abort": vLLM V1 when the engine aborts a request (shutdown, sleep,
//     scale-down: vllm-project/vllm#57082), SGLang on a graceful abort
//     (sgl-project/sglang#22535);
//   - "error": Together (togethercomputer/together-python#153), Mistral's
//     streamed choices, OpenRouter after an upstream failure; exo's
//     Responses answer its runner failed, which it ends as a whole one
//     (see exoFailed), and Jan's shim over a chat stream cut short (see
//     janShimCut);
//   - "insufficient_system_resource": DeepSeek, "interrupted due to
//     insufficient resource" (api-docs.deepseek.com);
//   - "network_error" (also spelled "network-error" by relays): Zhipu's
//     GLM API after a failure mid-answer (docs.z.ai chat-completion;
//     BerriAI/litellm#22673);
//   - "cancelled": a Responses answer whose status is cancelled, as vLLM
//     sends it in response.completed when its engine aborted the
//     request (see finishOf).
//   - "cancel": FastFlowLM (AMD's NPU server) when a request's
//     cancellation token stops the generation: the stream is finalized
//     as a whole one, its last chunk's finish reason the engine's word,
//     the usage and [DONE] after it (FastFlowLM/FastFlowLM
//     src/server/streaming_ostream_openai.hpp, streaming_buf_openai_chat's
//     finalize; stop_reason_to_string, CANCEL_DETECTED).
//   - "streaming_disabled": AnythingLLM's OpenAI-compatible endpoint
//     when its provider's connector does not stream: no output, and the
//     message it wrote ("Streaming is not available for the connected
//     LLM Provider") dropped by formatJSON (Mintplex-Labs/anything-llm,
//     server/utils/chats/openaiCompatible.js, streamChat).
//   - "recover_stop": Baidu's FastDeploy when its engine stops a request
//     it cannot recover, whose result it calls incomplete ("Recover is
//     not supported, the result is incomplete!"), then sends the usage
//     and [DONE] as for a whole answer (PaddlePaddle/FastDeploy
//     fastdeploy/entrypoints/openai/serving_chat.py,
//     fastdeploy/output/token_processor.py).
//   - "load": Ollama when a request has no prompt (a completions request
//     whose prompt is "", with a suffix or not; a cloud chat request with
//     no user message): it only loads the model, generates nothing and
//     finishes the empty answer "load", then sends the usage and [DONE]
//     as for a whole one (ollama/ollama server/routes.go, GenerateHandler
//     and ChatHandler; ollama/ollama#8395; can1357/oh-my-pi#7465).
//   - "upstream_incomplete": WindsurfAPI's /v1/responses (dwgx/WindsurfAPI
//     3.9.1 and later) when its upstream ended without a finish: the open
//     message item closed as "completed" with the text so far, then
//     response.incomplete of that reason, no error and no usage, then
//     [DONE] (src/handlers/responses.js, the translator's finish; the
//     reason named apart from max_output_tokens so that no client extends
//     a turn the upstream never finished: test/responses-stream-truncation.test.js).
//   - "upstream_stall_timeout" and "adapter_eof": opencodex's /v1/responses
//     (lidge-jun/opencodex src/bridge/sse.ts, bridgeToResponsesSSE) when
//     its upstream sent nothing for the bridge's stall budget (600 s
//     unless an installation sets `stallTimeoutSec`), and when the
//     provider adapter's events ended with no done or error event: the
//     open message item closed as "completed" with the text so far, then
//     response.incomplete of that reason, no error, the usage null or all
//     zeros, then [DONE]; the bridge itself calls such a stream truncated,
//     not a clean finish.
//   - "json_schema_violation": Rapid-MLX when an answer to a strict
//     json_schema request, generated without guided decoding, does not
//     validate once streamed: the chunk of this finish takes the place of
//     the engine's own, and an event named chat.completion.error follows
//     with the envelope of the 422 the same failure gets as a whole
//     answer, then the usage and [DONE] (raullenchai/Rapid-MLX
//     vllm_mlx/routes/chat.py, stream_chat_completion_strict_postgen).
//     The text is whole but not the answer asked for.
//   - "timeout": Cohere's v2 chat API ends a generation "TIMEOUT" and
//     one that failed "ERROR" (its message-end event's finish_reason,
//     beside the error's message in delta.error: cohere-ai/cohere-python
//     src/cohere/types/chat_finish_reason.py, chat_message_end_event_delta.py;
//     the SDK gives TIMEOUT no meaning beyond the word, and the request
//     no time limit of the caller's to reach);
//     Portkey's gateway without strict OpenAI compliance passes both on
//     in Cohere's capitals, "TIMEOUT" and "ERROR", on the finish chunk
//     with the usage, the message dropped, then [DONE]
//     (Portkey-AI/gateway src/providers/cohere/chatComplete.ts,
//     CohereChatCompleteStreamChunkTransform; src/providers/utils.ts,
//     transformFinishReason); InfiniLM says "timeout" of an answer past
//     its own time limit (see bracketedError). The words are matched in
//     lower case, as openAIFinishes' are.
//   - an error's type, a word ending in "_error" ("overloaded_error",
//     "api_error", "rate_limit_error"): Portkey's gateway turns
//     Anthropic's mid-stream `event: error` into a chunk whose
//     finish_reason is the error's type, drops its message and sends
//     [DONE] (Portkey-AI/gateway src/providers/anthropic/chatComplete.ts,
//     getAnthropicStreamChunkTransform).
//
// OpenAI's own SDKs pass them on as finished answers.

// FailedFinish reports whether reason, a choice's finish reason, says the
// server stopped the answer by a failure of its own, or never began it.
func FailedFinish(reason string) bool {
	reason = strings.ToLower(reason)
	switch reason {
	case "abort", "error", "timeout", "insufficient_system_resource", "network_error", "network-error", "cancelled", "cancel", "streaming_disabled", "recover_stop", "load", "upstream_incomplete", "upstream_stall_timeout", "adapter_eof", "json_schema_violation":
		return true
	}
	return strings.HasSuffix(reason, "_error")
}

// openAIFinishes are the finish reasons of servers that name in a word of
// their own an end OpenAI names with one of its four, and the name
// OpenAI gives it. Z.ai's GLM API (docs.z.ai, chat-completion) ends an
// answer the model's context window cut with
// "model_context_window_exceeded", where OpenAI says "length", and one its
// content safety review stopped with "sensitive", where OpenAI says
// "content_filter"; a caller that checks for "length" to ask for less, or
// for "content_filter", takes either for an answer of no known end (an
// agent loop sent the request again without end: anomalyco/opencode#18813).
// Mistral's API ends an answer the model's context cut, though max_tokens
// allowed more, with "model_length" (docs.mistral.ai, a choice's
// finish_reason; voxtral-small-latest recorded so at 32,424 prompt and
// 344 completion tokens of a 32,768-token context). CLIProxyAPI finishes a
// Gemini answer cut by MAX_TOKENS with Anthropic's word, "max_tokens",
// and a whole (unstreamed) Gemini answer with Gemini's own reason in lower
// case: "max_tokens", or "safety" and the other filters' names
// (router-for-me/CLIProxyAPI
// internal/translator/gemini/openai/chat-completions/gemini_openai_response.go,
// ConvertGeminiResponseToOpenAI and ConvertGeminiResponseToOpenAINonStream;
// Gemini's FinishReason at ai.google.dev/api/generate-content).
//
// A provider's own words come through a relay that passes them on as
// they are: Portkey's gateway does so for every provider when a request
// turns its strict OpenAI compliance off, as its docs ask for to see
// Claude's thinking (Portkey-AI/gateway src/providers/utils.ts,
// transformFinishReason): Anthropic's and Bedrock's stop_reason ("end_turn",
// "tool_use", "guardrail_intervened", …: docs.anthropic.com, the
// Messages API's stop_reason; docs.aws.amazon.com/bedrock, Converse's
// stopReason) and Gemini's FinishReason in capitals ("STOP",
// "MAX_TOKENS", "SAFETY"): the names are matched in lower case. TGI's
// Messages API ends an answer one of the request's stop sequences ended
// with "stop_sequence", and did so for one its model ended with
// "eos_token" before it wrote "stop" there (huggingface/text-generation-inference
// router/src/lib.rs, FinishReason::format; router/src/chat.rs), where
// OpenAI says "stop" for both. Together and SiliconFlow end an answer its
// model's end-of-sequence token ended with "eos" (togethercomputer/together-py
// src/together/types/chat/chat_completion_chunk.py; the FinishReason of
// docs.siliconflow.cn's chat-completions reference: stop, eos, length,
// tool_calls), where OpenAI says "stop". Sber's GigaChat API ends an
// answer its topic restrictions stopped, its canned refusal the text, with
// "blacklist" (developers.sber.ru/docs/ru/gigachat/api/reference/rest/post-chat,
// a choice's finish_reason), and gpt2giga, the proxy that serves GigaChat
// as OpenAI's chat API, passes it on as it came (ai-forever/gpt2giga
// src/gpt2giga/protocol/response/processor.py, process_stream_chunk),
// where OpenAI says "content_filter". Cohere's v2 chat API ends a whole
// answer with "COMPLETE" and one that calls a tool with "TOOL_CALL"
// (cohere-ai/cohere-python src/cohere/types/chat_finish_reason.py), and
// Portkey's gateway without strict OpenAI compliance passes both on as
// they are (Portkey-AI/gateway src/providers/cohere/chatComplete.ts),
// where OpenAI says "stop" and "tool_calls".
var openAIFinishes = map[string]string{
	"stop":                          "stop",
	"end_turn":                      "stop",
	"stop_sequence":                 "stop",
	"complete":                      "stop",
	"tool_use":                      "tool_calls",
	"tool_call":                     "tool_calls",
	"refusal":                       "content_filter",
	"guardrail_intervened":          "content_filter",
	"content_filtered":              "content_filter",
	"max_tokens":                    "length",
	"model_context_window_exceeded": "length",
	"model_length":                  "length",
	"sensitive":                     "content_filter",
	"safety":                        "content_filter",
	"recitation":                    "content_filter",
	"blocklist":                     "content_filter",
	"blacklist":                     "content_filter",
	"prohibited_content":            "content_filter",
	"spii":                          "content_filter",
	"image_safety":                  "content_filter",
	"image_prohibited_content":      "content_filter",
	"image_recitation":              "content_filter",
	"eos_token":                     "stop",
	"eos":                           "stop",
}

// openAIFinish gives every choice of c whose server ended it for a reason
// of openAIFinishes the name OpenAI gives that reason. It applies to a
// stream's accumulated completion and to a whole answer alike; Timing
// keeps the server's word.
func openAIFinish(c *openai.ChatCompletion) {
	for i := range c.Choices {
		if name, ok := openAIFinishes[strings.ToLower(c.Choices[i].FinishReason)]; ok {
			c.Choices[i].FinishReason = name
		}
	}
	if loraxAnswer(c) {
		for i := range c.Choices {
			if c.Choices[i].FinishReason == "content_filter" {
				c.Choices[i].FinishReason = "stop"
			}
		}
	}
}

// loraxAnswer reports whether c was accumulated from a chat stream of
// LoRAX's OpenAI-compatible router, whose every chunk has the id and the
// model "null", the string (predibase/lorax router/src/lib.rs,
// From<StreamResponse> for ChatCompletionStreamResponse; its whole
// answers name the model, and are left as they are). LoRAX has no
// content filter: it names an answer that reached one of the request's
// stop sequences "content_filter" (From<FinishReason> for
// CompletionFinishReason maps StopSequence to ContentFilter), where
// OpenAI says "stop", and a caller would take the answer for one a filter
// cut.
func loraxAnswer(c *openai.ChatCompletion) bool {
	return c.ID == "null" && c.Model == "null"
}

// toolCallsFinish gives the finish reason "tool_calls" to every choice of
// c whose message holds tool calls but whose server said "stop": Gemini's
// OpenAI endpoint does so when it streams calls (googleapis/python-genai#2868),
// and did in whole answers too (microsoft/autogen#4878), as Ollama did
// (ollama/ollama#7963) and KoboldCpp does (koboldcpp.py: "stop" or
// "length", never "tool_calls", before 2025), and an agent loop that
// waits for "tool_calls" would take the turn for its last. It applies to
// a stream's accumulated completion and to a whole answer alike, unless
// the server ran the calls itself (caller false): then the server's word
// stands (LocalAI with MCP servers named in the request's metadata
// streams its calls of them, then their results as events of their own
// (see serverToolResult) and the answer they led to, finished "stop":
// core/http/endpoints/openai/chat.go); "tool_calls" would have the caller
// run a tool it does not have. The request's tools do not tell: a caller
// may set them as extra JSON.
func toolCallsFinish(c *openai.ChatCompletion, caller bool) {
	if !caller {
		return
	}
	for i := range c.Choices {
		if ch := &c.Choices[i]; ch.FinishReason == "stop" && len(ch.Message.ToolCalls) > 0 {
			ch.FinishReason = "tool_calls"
		}
	}
}

// blankWholeFinish gives a finish reason to every choice of c, a whole
// answer, whose server left it blank: "tool_calls" where its message
// holds calls, else "stop". Snowflake Cortex answers a Claude model's
// whole completion with finish_reason "" every time (its answers as
// recorded live in pydantic/pydantic-ai
// tests/models/cassettes/test_snowflake/test_snowflake_tool_calling.yaml;
// pydantic_ai_slim/pydantic_ai/models/snowflake.py, _validate_completion,
// gives them the same two), and an agent loop that waits for
// "tool_calls" would take a call for the turn's last answer. A whole
// answer has ended: a stream's accumulated completion, which may have
// been cut, is never given one here.
func blankWholeFinish(c *openai.ChatCompletion) {
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.FinishReason != "" || ch.JSON.FinishReason.Raw() != `""` {
			continue
		}
		ch.FinishReason = "stop"
		if len(ch.Message.ToolCalls) > 0 {
			ch.FinishReason = "tool_calls"
		}
	}
}

// noCallsFinish gives the finish reason "stop" to every choice of c
// whose server said "tool_calls" though the message holds no call: MLC
// LLM's `mlc_llm serve` finishes every streamed answer to a request with
// tools "tool_calls", whatever the model wrote, and streams the text as
// content, never as calls (mlc-ai/mlc-llm python/mlc_llm/serve/
// engine_base.py, process_chat_completion_stream_output; its whole
// answer parses the text into calls, process_function_call_output). An
// agent loop that reads "tool_calls" finds nothing to run and asks
// again, as it does for an answer of no known end
// (anomalyco/opencode#18813). It applies to a stream's accumulated
// completion and to a whole answer alike; Timing keeps the server's word.
func noCallsFinish(c *openai.ChatCompletion) {
	for i := range c.Choices {
		ch := &c.Choices[i]
		//lint:ignore SA1019 a server that still sends the deprecated function_call made a call
		if ch.FinishReason == "tool_calls" && len(ch.Message.ToolCalls) == 0 && ch.Message.FunctionCall.Name == "" {
			ch.FinishReason = "stop"
		}
	}
}

// serverToolResult reports whether c, an event of a chat stream, is the
// result of a tool the server ran itself: no choices, its type
// "mcp_tool_result" (LocalAI with MCP servers named in the request's
// metadata: core/http/endpoints/openai/chat.go).
func serverToolResult(c *openai.ChatCompletionChunk) bool {
	return len(c.Choices) == 0 && c.JSON.ExtraFields["type"].Raw() == `"mcp_tool_result"`
}

// OutputLimit returns the output tokens req allows a chat or completions
// answer (its max_completion_tokens, else its max_tokens), for the finish
// reason of an answer that used them all; 0 for none, and for a
// Responses request, whose own finish reason says so.
func OutputLimit(req Request) int64 {
	if req == nil || req.API() == APIResponses {
		return 0
	}
	v := req.View()
	switch {
	case v.MaxCompletionTokens.Valid():
		return v.MaxCompletionTokens.Value
	case v.MaxTokens.Valid():
		return v.MaxTokens.Value
	}
	return 0
}

// lengthFinish gives the finish reason "length" to the one choice of c
// when its server said "stop" though the answer streamed at least limit
// output-bearing deltas, limit being the output tokens the request
// allowed: the answer ran into its limit, and a caller that checks for
// "length" to ask for the rest would take the cut answer for a whole one.
// one-api's Ollama channel (relay/adaptor/ollama: every answer that is
// done is "stop") answers so, as did Ollama's own OpenAI endpoint before
// it read done_reason. Deltas are counted, for a delta holds at least one
// token, where some servers count the end-of-sequence token in their usage
// (a natural stop one token short of the limit would read as cut); but a
// usage under the limit says the answer did not reach it, whatever the
// deltas (a relay that splits tokens into smaller deltas).
//
// A choice its server said "tool_calls" for is cut too when it used
// every token allowed and its last call's arguments are no JSON: vLLM's
// chat stream says "tool_calls" once a call has streamed, whatever its
// engine's reason, so a call cut by max_tokens inside its arguments reads
// as a whole one (vllm-project/vllm#53269, #47963), which the caller
// would run. Its tool parser holds back tokens, so its deltas are fewer
// than its tokens: the usage counts them, and the deltas only where no
// usage came.
func lengthFinish(c *openai.ChatCompletion, limit, deltas int64) {
	if limit <= 0 || len(c.Choices) != 1 {
		return
	}
	ch, used := &c.Choices[0], c.Usage.CompletionTokens
	switch ch.FinishReason {
	case "stop":
		if deltas < limit || used > 0 && used < limit {
			return
		}
	case "tool_calls":
		if used < limit && (used > 0 || deltas < limit) || !cutCall(ch.Message.ToolCalls) {
			return
		}
	default:
		return
	}
	ch.FinishReason = "length"
}

// cutCall reports whether the last of calls has arguments that are no
// JSON, as a call cut before its end has.
func cutCall(calls []openai.ChatCompletionMessageToolCallUnion) bool {
	return len(calls) > 0 && !json.Valid([]byte(calls[len(calls)-1].Function.Arguments))
}

// Unfinished reports whether ev, a whole answer, never finished: no choice
// has a finish reason and the server counted no output token. Ollama
// answers so when it stops an answer itself, on a token repeated over 30
// times (llm/llama_server.go of August 2026, logged at debug level only):
// status 200, the text so far, finish_reason null and usage all zero,
// where bare openai-go returns the cut text as a whole answer. A server
// that leaves out the finish reason of a finished answer still counts its
// tokens. A background response still pending is not finished but not
// cut either.
func Unfinished(ev Event) bool {
	c := ev.Chunk
	if c == nil || len(c.Choices) == 0 || ev.Pending || (ev.HasUsage && ev.Usage.Output > 0) {
		return false
	}
	for _, ch := range c.Choices {
		if ch.FinishReason != "" {
			return false
		}
	}
	return true
}
