package codec

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

// Response event types that tokenpace reads.
const (
	RespTextDelta      = "response.output_text.delta"
	respRefusalDelta   = "response.refusal.delta"
	respReasoningDelta = "response.reasoning_text.delta"
	respSummaryDelta   = "response.reasoning_summary_text.delta"
	// The names the reasoning deltas had in the API reference of mid
	// 2025, whose delta was an object; servers built on it still send
	// them.
	respOldReasoning = "response.reasoning.delta"
	respOldSummary   = "response.reasoning_summary.delta"
	RespArgsDelta    = "response.function_call_arguments.delta"
	respAudioDelta   = "response.audio.delta"
	respAudioText    = "response.audio.transcript.delta"
	// Deltas of the calls of other tools than functions: the model
	// writes a custom tool's input, a remote MCP tool's arguments, the
	// code it gives the code interpreter, the commands of the shell
	// tool.
	respCustomDelta = "response.custom_tool_call_input.delta"
	respMCPDelta    = "response.mcp_call_arguments.delta"
	respCodeDelta   = "response.code_interpreter_call_code.delta"
	respShellDelta  = "response.shell_call_command.delta"
	// Their done events, which hold the whole of what the deltas held.
	respCustomDone = "response.custom_tool_call_input.done"
	respMCPDone    = "response.mcp_call_arguments.done"
	respCodeDone   = "response.code_interpreter_call_code.done"
	respShellDone  = "response.shell_call_command.done"
	// A refusal's done event, which holds the whole refusal.
	respRefusalDone = "response.refusal.done"
	// The output of a command the shell tool ran: the tool's, not the
	// model's; its delta an object.
	respShellOutput = "response.shell_call_output_content.delta"
	// A partial image of the image generation tool: a piece of the
	// answer the caller waits for.
	respPartialImage = "response.image_generation_call.partial_image"
	RespCompleted    = "response.completed"
	RespIncomplete   = "response.incomplete"
	respFailed       = "response.failed"
	respError        = "error"
	// An error event under a name of its own, its code and message nested
	// in an "error" object: OpenRouter's Responses API beta lists it
	// beside response.failed and error among the events that report a
	// failure after the stream has begun
	// (openrouter.ai/docs/api/reference/errors-and-debugging), and
	// Responses readers take it so (zed-industries/zed
	// crates/open_ai/src/responses.rs, StreamEvent::Error).
	respErrorNamed = "response.error"
	// The final event of ChatGPT's Codex backend, which relays pass on
	// (decolua/9router#2142, Wei-Shaw/sub2api#6473): the response, as
	// response.completed holds it.
	RespDone = "response.done"
)

// response is a response's request (the Responses API).
type response struct{ p responses.ResponseNewParams }

// Response returns the request of a response.
func Response(p responses.ResponseNewParams) Request { return response{p} }

func (response) API() API          { return APIResponses }
func (response) Choices() int      { return 1 }
func (response) Prompts() int      { return 1 }
func (response) CanContinue() bool { return true }

// MaxObjects is maxResponseObjects, and, when the request asks for log
// probabilities, room for them over its whole output: the last events
// hold them all, each token's an object and each of its top_logprobs
// alternatives one more (some 440 bytes each, decoded).
func (r response) MaxObjects() int {
	n := maxResponseObjects
	if r.p.TopLogprobs.Valid() || slices.Contains(r.p.Include, responses.ResponseIncludableMessageOutputTextLogprobs) {
		n += logprobObjects(r.p.MaxOutputTokens.Or(maxOutputTokens), r.p.TopLogprobs.Or(0))
	}
	return n
}

// View returns its model, max_output_tokens, and its instructions and
// input as one message.
func (r response) View() openai.ChatCompletionNewParams {
	input := ""
	if s := r.p.Input.OfString; s.Valid() {
		input = s.Value
	} else if b, err := json.Marshal(r.p.Input); err == nil {
		input = string(b)
	}
	return openai.ChatCompletionNewParams{
		Model:     r.p.Model,
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage(r.p.Instructions.Value + input)},
		MaxTokens: r.p.MaxOutputTokens,
	}
}

func (r response) Model() string { return r.p.Model }

func (r response) PromptBytes() int {
	if s := r.p.Input.OfString; s.Valid() {
		return len(s.Value) + len(r.p.Instructions.Value)
	}
	return 0
}

// For returns the request for model; a continuation sends the input (a
// string input as one user message), the output text so far as an
// assistant message and the continue prompt as a user message, with
// max_output_tokens reduced by the tokens delivered (to no less than
// minOutputTokens).
func (r response) For(model string, cont *Continuation) Request {
	p := r.p
	p.Model = model
	if cont != nil {
		var items responses.ResponseInputParam
		if s := p.Input.OfString; s.Valid() {
			items = append(items, responses.ResponseInputItemParamOfMessage(s.Value, responses.EasyInputMessageRoleUser))
		} else {
			items = slices.Clip(p.Input.OfInputItemList)
		}
		items = append(items,
			responses.ResponseInputItemParamOfMessage(cont.Text, responses.EasyInputMessageRoleAssistant),
			responses.ResponseInputItemParamOfMessage(cont.Prompt, responses.EasyInputMessageRoleUser))
		p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
		if p.MaxOutputTokens.Valid() {
			p.MaxOutputTokens = openai.Int(max(minOutputTokens, p.MaxOutputTokens.Value-cont.Delivered))
		}
	}
	return response{p}
}

// minOutputTokens is the least max_output_tokens the Responses API
// accepts: OpenAI's and Azure's answer less with a 400
// (integer_below_min_value, "Expected a value >= 16"), and gateways such as
// Bifrost raise it to 16. A continuation asks for at least that many, so
// that the answer may run up to 15 tokens past the request's own
// max_output_tokens rather than fail.
const minOutputTokens = 16

func (r response) Stream(ctx context.Context, client *openai.Client, opts []option.RequestOption) Closer {
	return client.Responses.NewStreaming(ctx, r.p, opts...)
}

// Decode decodes a Responses event into the event and its chat view: one
// choice whose delta holds the output text (or the refusal) and the model
// the response names. An error event, or a response.failed, is a server
// error; response.completed and response.incomplete are final.
func (r response) Decode(data []byte) (Event, error) {
	ev := new(responses.ResponseStreamEventUnion)
	if err := unmarshal(data, ev); err != nil {
		return Event{}, malformed(data, err)
	}
	if ev.Type == "" {
		// An error relayed as a chat server sends it: LiteLLM's proxy
		// on /v1/responses (zed-industries/zed#63825), [DONE] after it
		// or not.
		if s := rawError(data, gjson.GetBytes(data, "error").Raw, ""); s != nil {
			return Event{}, serverError(s)
		}
		// A chat chunk: gpt4free answers /v1/responses with its chat
		// stream (xtekky/gpt4free g4f/api/__init__.py, create_response),
		// a whole answer no Responses reader can take for one.
		if gjson.GetBytes(data, "object").Str == "chat.completion.chunk" {
			return Event{}, errChatChunk
		}
		if s := typelessError(data); s != nil {
			return Event{}, serverError(s)
		}
	}
	deltaText(ev)
	var d openai.ChatCompletionChunkChoiceDelta
	switch ev.Type {
	case RespTextDelta:
		d.Content = ev.Delta
	case respRefusalDelta:
		d.Refusal = ev.Delta
	case respError, respErrorNamed:
		return Event{}, serverError(errorEvent(ev, data))
	case respFailed:
		e := ev.Response.Error
		if e.Code == "" && e.Message == "" {
			// Osaurus puts the error beside the response, not in it
			// (osaurus-ai/osaurus ResponseWriters.swift,
			// OpenResponsesSSEWriter.writeError).
			return Event{}, serverError(errorEvent(ev, data))
		}
		return Event{}, serverError(&ServerError{Code: string(e.Code), Message: e.Message})
	}
	out := Event{
		Chunk: &openai.ChatCompletionChunk{
			Model:   ev.Response.Model,
			Choices: []openai.ChatCompletionChunkChoice{{Delta: d}},
		},
		Orig:     ev,
		ToolCall: responseCall(ev),
		Audio:    ev.Type == respAudioDelta || ev.Type == respAudioText,
		Refusal:  ev.Type == respRefusalDelta,
	}
	if responseOutput(ev) {
		out.Outputs = 1
	}
	if ev.Type == RespCompleted || ev.Type == RespIncomplete || ev.Type == RespDone {
		if res := &ev.Response; res.Status == responses.ResponseStatusFailed {
			return Event{}, serverError(&ServerError{Code: string(res.Error.Code), Message: res.Error.Message})
		}
		if s := incompleteError(ev); s != nil {
			return Event{}, serverError(s)
		}
		out.Final = true
		out.End = responseEnd(ev)
		out.End.Reason = r.cut(out.End.Reason, out.End.HasUsage, out.End.Output)
	}
	return out, nil
}

// deltaText sets the delta of an event whose delta is an object instead of
// a string to the text the object holds: its "text" or its "content". The
// API reference of mid 2025 gave reasoning deltas an object
// (response.reasoning.delta), and servers and gateways built on it send
// one ({"content": ...}, {"type":"output_text","text": ...}); openai-go
// gives the object's JSON as the delta. The one event whose delta the API
// types as an object, the shell tool's output
// (ResponseShellCallOutputContentDeltaEvent, {"stdout","stderr"}), keeps
// it as openai-go gives it.
func deltaText(ev *responses.ResponseStreamEventUnion) {
	raw := ev.JSON.Delta.Raw()
	if !strings.HasPrefix(raw, "{") || ev.Type == respShellOutput {
		return // a string, as the API sends it, or the API's object
	}
	for _, r := range gjson.GetMany(raw, "text", "content") {
		if r.Type == gjson.String {
			ev.Delta = r.Str
			return
		}
	}
	ev.Delta = ""
}

// errorEvent returns the error of a Responses error event: its code,
// message and param, at the event's top level as the API reference
// documents them, or nested in an "error" object as OpenAI's and Azure's
// servers send them (openai/openai-dotnet#881, openai/openai-node#2021);
// data is the event's JSON. A nested error's type is its Type too, and
// its Code when it has none: mistral.rs names a request it refuses only
// so, {"error":{"type":"validation_error","message":…}} with no code
// (mistralrs-server-core/src/responses.rs, OpenResponsesStreamer).
func errorEvent(ev *responses.ResponseStreamEventUnion, data []byte) *ServerError {
	e := &ServerError{Code: ev.Code, Message: ev.Message, Param: ev.Param}
	if e.Message != "" || e.Code != "" {
		e.Flat = string(data)
		return e
	}
	var outer struct {
		Error struct{ Type, Code, Message, Param json.RawMessage }
	}
	if json.Unmarshal(data, &outer) != nil {
		return e
	}
	nested := outer.Error
	e.Code, e.Message, e.Param = stringOf(nested.Code), stringOf(nested.Message), stringOf(nested.Param)
	e.Type = stringOf(nested.Type)
	if e.Code == "" {
		e.Code = e.Type
	}
	return e
}

// responseOutput reports whether a Responses event carries generated
// output: a delta of text, refusal, reasoning, audio or its transcript,
// or of what the model writes into a tool call; or a partial image, a
// piece of an answer that is an image. A hosted tool's progress (a
// search, a command's output) is not output.
func responseOutput(ev *responses.ResponseStreamEventUnion) bool {
	switch ev.Type {
	case RespTextDelta, respRefusalDelta, respReasoningDelta, respSummaryDelta, respOldReasoning, respOldSummary, respAudioDelta, respAudioText,
		RespArgsDelta, respCustomDelta, respMCPDelta, respCodeDelta, respShellDelta:
		return ev.Delta != ""
	case respPartialImage:
		return ev.PartialImageB64 != ""
	}
	return false
}

// responseCall reports whether a Responses event carries a tool call: a
// delta the model writes into one, or the output item that opens one.
func responseCall(ev *responses.ResponseStreamEventUnion) bool {
	switch ev.Type {
	case RespArgsDelta, respCustomDelta, respMCPDelta, respCodeDelta, respShellDelta, respPartialImage:
		return true
	case "response.output_item.added":
		return callOutput(ev.Item.Type, ev.Item.Execution)
	}
	return false
}

// callItem reports whether an output item of type t holds a tool call
// whose item is output when nothing of it streamed: of a function, a
// custom tool, a remote MCP tool, the code interpreter or the image
// generation tool (the image is the answer), or of the computer, shell,
// local shell or apply-patch tool, which the caller runs; or a remote MCP
// tool's call that waits for the caller's approval (mcp_approval_request,
// whole in its added and done events, the answer the caller acts on). A
// search's is not, nor the list of an MCP server's tools: the answer
// follows them.
func callItem(t string) bool {
	switch t {
	case "function_call", "custom_tool_call", "mcp_call", "mcp_approval_request", "code_interpreter_call", "image_generation_call",
		"computer_call", "shell_call", "local_shell_call", "apply_patch_call":
		return true
	}
	return false
}

// cut returns the finish reason of a response the server called
// complete (reason "stop") whose output tokens are exactly the request's
// max_output_tokens: "max_output_tokens", as the API reports a response
// cut there. Ollama's and llama.cpp's /v1/responses report such a
// response completed (ollama/ollama#17239); its output tokens are the
// only sign of the cut. More output tokens than the limit mean the server
// did not apply it, or counts what it does not bound. An answer that
// ends by itself on the limit's last token reads as cut too. Any other
// reason is returned as it is.
func (r response) cut(reason string, hasUsage bool, output int64) string {
	if reason == "stop" && hasUsage && r.p.MaxOutputTokens.Valid() && output == r.p.MaxOutputTokens.Value {
		return "max_output_tokens"
	}
	return reason
}

// responseEnd returns what the final event of a response says: its
// finish reason (see finishOf) and its usage.
func responseEnd(ev *responses.ResponseStreamEventUnion) *End {
	status := ev.Response.Status
	if ev.Type == RespIncomplete {
		status = responses.ResponseStatusIncomplete
	}
	e := &End{Reason: finishOf(status, ev.Response.IncompleteDetails.Reason)}
	if ev.Type == RespCompleted && (exoFailed(&ev.Response) || janShimCut(&ev.Response)) {
		e.Reason = "error" // see exoFailed and janShimCut
	}
	if !ev.Response.JSON.Usage.Valid() {
		return e
	}
	if c, ok := chatShapedUsage(&ev.Response); ok {
		e.HasUsage = true
		e.Input, e.CachedInput, e.Output, e.Reasoning = c.Prompt, c.Cached, c.Output, c.Reasoning
	} else if u := ev.Response.Usage; counted(u.InputTokens, u.OutputTokens) {
		e.HasUsage = true
		cached := inputCached(&u.InputTokensDetails)
		e.Input, e.CachedInput, e.Output = inputWithCache(&u, cached), cached, u.OutputTokens
		e.Reasoning = min(max(u.OutputTokensDetails.ReasoningTokens, 0), max(u.OutputTokens, 0))
	}
	return e
}

// finishOf returns the finish reason of a response of status status, by
// the response's own word, not by the event that carries it: vLLM ends
// every stream with response.completed, the response in it incomplete
// when cut or "cancelled" when its engine aborted it
// (vllm/entrypoints/openai/responses/serving.py; vllm-project/agentic-api#273).
// A completed response (or one without a status) stopped: "stop",
// unless it gives a reason why it is incomplete all the same (Docker
// Model Runner's /v1/responses calls a response cut at max_output_tokens
// completed, with incomplete_details {"reason":"max_tokens"}: seen live,
// 2026). An incomplete one gives its reason, "max_output_tokens" when it
// gives none or calls it "max_tokens" or "length". A cancelled one is
// "cancelled", which FailedFinish says the server stopped.
func finishOf(status responses.ResponseStatus, incomplete string) string {
	if pending(status) {
		return "" // not finished yet
	}
	switch status {
	case responses.ResponseStatusIncomplete:
		if incomplete == "" {
			return "max_output_tokens"
		}
	case responses.ResponseStatusCancelled:
		return "cancelled"
	}
	switch incomplete {
	case "":
		return "stop"
	case "max_tokens", "length":
		return "max_output_tokens"
	}
	return incomplete
}

func (r response) Fetch(ctx context.Context, client *openai.Client, opts []option.RequestOption) (Event, error, error) {
	res, err := client.Responses.New(ctx, r.p, opts...)
	if err != nil {
		return Event{}, nil, err
	}
	if res == nil {
		return Event{}, errNull, nil
	}
	if res.Status == responses.ResponseStatusFailed {
		return Event{}, serverError(&ServerError{Code: string(res.Error.Code), Message: res.Error.Message}), nil
	}
	if se := wholeError(res.RawJSON(), len(res.Output) == 0); se != nil {
		return Event{}, serverError(se), nil
	}
	c, err := wholeResponseChunk(res)
	if err != nil {
		return Event{}, err, nil
	}
	if placeholderUsage(res.ID, &c.Usage) {
		// KoboldCpp's placeholder, relayed as a response (CLIProxyAPI makes
		// one of its chat answer): no usage, as in a chat answer.
		c.Usage, res.Usage, res.JSON.Usage = openai.CompletionUsage{}, responses.ResponseUsage{}, respjson.Field{}
	}
	ch := &c.Choices[0]
	ch.FinishReason = r.cut(ch.FinishReason, res.JSON.Usage.Valid(), c.Usage.CompletionTokens)
	if ch.FinishReason == "max_output_tokens" && res.Status == responses.ResponseStatusCompleted {
		markIncomplete(res)
	}
	ev := chunkEvent(c, res)
	ev.Items = holdsReasoning(res)
	if pending(res.Status) {
		// A background response (background: true), queued or under way:
		// the answer is the response to poll, not an empty one that
		// another route should be asked for (and billed) again.
		ev.Outputs, ev.Pending = max(ev.Outputs, 1), true
	}
	for _, item := range res.Output {
		if item.Type != "function_call" && callOutput(item.Type, item.Execution) {
			// A call the chat view cannot hold (a custom tool's, a
			// generated image) is output too.
			ev.Outputs, ev.ToolCall = max(ev.Outputs, 1), true
		}
	}
	return ev, nil, nil
}

// markIncomplete makes res, a whole response its server called completed
// though it stopped at max_output_tokens (see cut), say what the API says
// of such a response: status "incomplete", incomplete_details.reason
// "max_output_tokens", and its unfinished message items incomplete.
// Otherwise its caller, reading the status, takes a cut answer for a
// whole one.
func markIncomplete(res *responses.Response) {
	res.Status = responses.ResponseStatusIncomplete
	res.IncompleteDetails.Reason = "max_output_tokens"
	for i := range res.Output {
		if item := &res.Output[i]; item.Type == "message" && item.Status == "completed" {
			item.Status = "incomplete"
		}
	}
}

// pending reports whether a response of status status has not finished:
// a background response, queued or under way.
func pending(status responses.ResponseStatus) bool {
	return status == responses.ResponseStatusQueued || status == responses.ResponseStatusInProgress
}

// wholeResponseChunk returns the chat view of a whole Responses response:
// one choice whose delta holds its output text, refusal and function
// calls, its finish reason ("stop" once completed, else why it is
// incomplete) and its usage.
func wholeResponseChunk(res *responses.Response) (*openai.ChatCompletionChunk, error) {
	c := new(openai.ChatCompletionChunk)
	if err := json.Unmarshal([]byte(res.RawJSON()), c); err != nil {
		return nil, err
	}
	d := openai.ChatCompletionChunkChoiceDelta{Role: "assistant", Content: res.OutputText()}
	for _, item := range res.Output {
		switch item.Type {
		case "message":
			for _, part := range item.Content {
				if part.Type == "refusal" {
					d.Refusal += part.Refusal
				}
			}
		case "function_call":
			d.ToolCalls = append(d.ToolCalls, openai.ChatCompletionChunkChoiceDeltaToolCall{
				Index: int64(len(d.ToolCalls)), ID: item.CallID, Type: "function",
				Function: openai.ChatCompletionChunkChoiceDeltaToolCallFunction{Name: item.Name, Arguments: item.Arguments.OfString},
			})
		}
	}
	c.Choices = []openai.ChatCompletionChunkChoice{{Delta: d, FinishReason: finishOf(res.Status, res.IncompleteDetails.Reason)}}
	// The usage field is the response's (valid when it has one), its
	// counts those of the Responses API; one written with the chat API's
	// names (see chatNamed) is decoded as it is.
	// Its counts are the streamed ones' (see responseEnd): the cache
	// counts its input_tokens left out added to them, its reasoning
	// tokens within its output.
	if u := &res.Usage; !chatNamed(u) {
		cached := inputCached(&u.InputTokensDetails)
		c.Usage = openai.CompletionUsage{
			PromptTokens: inputWithCache(u, cached), CompletionTokens: u.OutputTokens, TotalTokens: u.TotalTokens,
			PromptTokensDetails: openai.CompletionUsagePromptTokensDetails{CachedTokens: cached},
			// Within the output, as the streamed count is.
			CompletionTokensDetails: openai.CompletionUsageCompletionTokensDetails{
				ReasoningTokens: min(max(u.OutputTokensDetails.ReasoningTokens, 0), max(u.OutputTokens, 0)),
			},
		}
	}
	return c, nil
}

// Stored reports whether r refers to state a server stored: a Responses
// request with a previous_response_id or a conversation, which only the
// server that holds them can answer with their history. previous is the
// previous_response_id, "" when r names none.
func Stored(r Request) (previous string, ok bool) {
	p, isResp := r.(response)
	if !isResp {
		return "", false
	}
	conv := p.p.Conversation.OfString.Valid() || p.p.Conversation.OfConversationObject != nil
	return p.p.PreviousResponseID.Value, p.p.PreviousResponseID.Value != "" || conv
}

// Background reports whether r is a Responses request in background mode
// that the server stores (background true, store not false): one whose
// stream the server can replay from any of its events (see Resume).
func Background(r Request) bool {
	p, ok := r.(response)
	return ok && p.p.Background.Value && p.p.Store.Or(true)
}

// Resume returns the request that picks up the stream of response id, a
// background response of r (see Background), after its event of sequence
// number after: GET /responses/{id}?stream=true&starting_after=after. The
// server replays the events that followed and goes on with the live ones;
// the model generates nothing again. (OpenAI's background mode; a server
// without it answers the GET with an error status.) Its decoding is r's.
func Resume(r Request, id string, after int64) Request {
	return resumed{response: r.(response), id: id, after: after}
}

// resumed is the request that resumes a background response's stream.
type resumed struct {
	response
	id    string
	after int64
}

func (r resumed) Stream(ctx context.Context, client *openai.Client, opts []option.RequestOption) Closer {
	q := responses.ResponseGetParams{StartingAfter: openai.Int(r.after), Include: r.p.Include}
	// openai-go sets stream in a JSON body, which a GET does not carry
	// to every server; OpenAI's reference names it a query parameter.
	opts = append(slices.Clip(opts), option.WithQuery("stream", "true"))
	return client.Responses.GetStreaming(ctx, r.id, q, opts...)
}
