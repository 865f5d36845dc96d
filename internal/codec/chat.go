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

// chat is a chat completion's request; added: the client added
// stream_options to it (see AddedUsage); maxAdded: it sends the caller's
// max_completion_tokens as max_tokens too (see AddedMaxTokens).
type chat struct {
	p        openai.ChatCompletionNewParams
	added    bool
	maxAdded bool
}

// Chat returns the request of a chat completion. A streaming one asks for
// the usage chunk unless p says otherwise. One whose limit is
// max_completion_tokens alone sends it as max_tokens too (see
// AddedMaxTokens). A stop sequence given as a string is sent as a list of
// one (see stopList).
func Chat(p openai.ChatCompletionNewParams, stream bool) Request {
	if s := p.Stop.OfString; s.Valid() {
		p.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: stopList(s.Value)}
	}
	added := stream && !p.StreamOptions.IncludeUsage.Valid()
	if added {
		p.StreamOptions.IncludeUsage = openai.Bool(true)
	}
	return chat{p, added, p.MaxCompletionTokens.Valid() && !p.MaxTokens.Valid()}
}

// sent returns the params the request sends: the caller's, with
// max_tokens beside max_completion_tokens when the client adds it.
func (r chat) sent() openai.ChatCompletionNewParams {
	p := r.p
	if r.maxAdded {
		p.MaxTokens = p.MaxCompletionTokens
	}
	return p
}

func (chat) API() API                               { return APIChat }
func (r chat) View() openai.ChatCompletionNewParams { return r.p }
func (chat) CanContinue() bool                      { return true }
func (r chat) Choices() int                         { return choices(r.p.N.Or(1)) }
func (chat) Prompts() int                           { return 1 }
func (chat) MaxObjects() int                        { return maxChunkObjects }
func (r chat) PromptBytes() int {
	if n, text := MessageBytes(r.p.Messages); text {
		return n
	}
	return 0
}

func (r chat) Model() string { return r.p.Model }

// For returns the request for model; a continuation sends the messages,
// the output so far as an assistant message and the continue prompt, with
// the max tokens reduced by the tokens delivered.
func (r chat) For(model string, cont *Continuation) Request {
	p := r.p
	p.Model = model
	if cont != nil {
		p.Messages = append(slices.Clip(p.Messages), openai.AssistantMessage(cont.Text), openai.UserMessage(cont.Prompt))
		if p.MaxTokens.Valid() {
			p.MaxTokens = openai.Int(max(1, p.MaxTokens.Value-cont.Delivered))
		}
		if p.MaxCompletionTokens.Valid() {
			p.MaxCompletionTokens = openai.Int(max(1, p.MaxCompletionTokens.Value-cont.Delivered))
		}
	}
	return chat{p, r.added, r.maxAdded}
}

func (r chat) Stream(ctx context.Context, client *openai.Client, opts []option.RequestOption) Closer {
	return client.Chat.Completions.NewStreaming(ctx, r.sent(), opts...)
}

func (r chat) Decode(data []byte) (Event, error) {
	c := new(openai.ChatCompletionChunk)
	if err := unmarshal(data, c); err != nil {
		return Event{}, malformed(data, err)
	}
	if s := rawError(data, c.JSON.ExtraFields["error"].Raw(), c.JSON.Object.Raw()); s != nil && !hostedToolEvent(data) {
		return Event{}, serverError(s)
	}
	if s := codeError(c.JSON.ExtraFields, len(c.Choices)); s != nil {
		return Event{}, serverError(s)
	}
	if s := llamaCppError(data, c.JSON.ExtraFields, len(c.Choices)); s != nil {
		return Event{}, serverError(s)
	}
	if s := contentError(c.JSON.ExtraFields, len(c.Choices)); s != nil {
		return Event{}, serverError(s)
	}
	if s := errorTypeFrame(c.JSON.ExtraFields, len(c.Choices)); s != nil {
		return Event{}, serverError(s)
	}
	if _, ok := c.JSON.ExtraFields["code"]; ok && len(c.Choices) == 0 {
		// Only an event without choices that has a code may be a
		// platform's failure status (see statusError): the chunks of an
		// answer are not read again.
		if s := statusError(data); s != nil {
			return Event{}, serverError(s)
		}
	}
	if s := kiroContentLength(data, c.JSON.ExtraFields, len(c.Choices)); s != nil {
		return Event{}, serverError(s)
	}
	if s := groqError(c.JSON.ExtraFields); s != nil {
		return Event{}, serverError(s)
	}
	if f, ok := c.JSON.ExtraFields["base_resp"]; ok {
		if s := baseRespError(f.Raw()); s != nil {
			return Event{}, serverError(s)
		}
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		ch.FinishReason = finishReason(ch.FinishReason, nativeFinish(ch.JSON.ExtraFields, c.JSON.ExtraFields, ch.FinishReason != ""))
		if ch.FinishReason == "tool_calls" {
			repetitionFinish(ch)
			callsAsContent(c, ch)
		}
		if !oneToolCall(&c.Choices[i].Delta) {
			return Event{}, &Error{Detail: "delta tool_calls neither an array nor a tool call"}
		}
		contentParts(&c.Choices[i].Delta)
		deltaThoughts(&c.Choices[i].Delta)
		deltaReasoningObject(&c.Choices[i].Delta)
	}
	if err := checkChoices(c, r.Choices()); err != nil {
		return Event{}, err
	}
	omniAudio(c)
	if s := errorAsContent(c); s != nil {
		return Event{}, serverError(s)
	}
	if s := omniError(c); s != nil {
		return Event{}, serverError(s)
	}
	if s := commandCodeError(c); s != nil {
		return Event{}, serverError(s)
	}
	if s := geminiCLIError(c); s != nil {
		return Event{}, serverError(s)
	}
	if s := antigravity2apiError(c); s != nil {
		return Event{}, serverError(s)
	}
	if s := ragFlowError(c); s != nil {
		return Event{}, serverError(s)
	}
	if s := bracketedError(c); s != nil {
		return Event{}, serverError(s)
	}
	if droppedOllamaError(c) || abortedTerminal(c) {
		// The answer was cut: the finish reason is the bridge's, not
		// the server's (see droppedOllamaError, abortedTerminal).
		c.Choices[0].FinishReason = ""
	}
	if s := webChatChunk(c); s != nil {
		return Event{}, serverError(s)
	}
	ev := chunkEvent(c, c)
	ev.Frame = diffusionFrame(c)
	return ev, nil
}

// oneToolCall makes a delta whose tool_calls came as one object, not an
// array (TGI before 3.2: huggingface/text-generation-inference#2794,
// #3086), an array of that call, when it holds an id, a name or
// arguments; openai-go would drop it. It reports false when the object is
// not a tool call.
func oneToolCall(d *openai.ChatCompletionChunkChoiceDelta) bool {
	raw := d.JSON.ToolCalls.Raw()
	if !strings.HasPrefix(raw, "{") {
		return true
	}
	var tc openai.ChatCompletionChunkChoiceDeltaToolCall
	if json.Unmarshal([]byte(raw), &tc) != nil {
		return false
	}
	if tc.ID != "" || tc.Function.Name != "" || tc.Function.Arguments != "" {
		d.ToolCalls = []openai.ChatCompletionChunkChoiceDeltaToolCall{tc}
	}
	return true
}

// chunkEvent returns the event whose chat view is c: its output-bearing
// deltas (audio among them), usage, tool calls and audio.
func chunkEvent(c *openai.ChatCompletionChunk, orig any) Event {
	ev := Event{Chunk: c, Orig: orig}
	ev.Usage, ev.HasUsage = chunkUsage(c)
	for i := range c.Choices {
		d := &c.Choices[i].Delta
		if outputBearing(d) {
			ev.Outputs++
		}
		if d.JSON.Audio.Valid() {
			ev.Audio = true
		}
		if d.Refusal != "" {
			ev.Refusal = true
		}
		//lint:ignore SA1019 servers still stream legacy function calls
		if len(d.ToolCalls) > 0 || d.FunctionCall.Name != "" || d.FunctionCall.Arguments != "" {
			ev.ToolCall = true
		}
		if _, ok := d.JSON.ExtraFields[reasoningDetails]; ok {
			ev.Details = true
		}
		if c.Choices[i].Index == 0 && len(d.JSON.ExtraFields) > 0 {
			if _, ok := d.JSON.ExtraFields[reasoningContent]; ok || ReasoningPiece(d) != "" {
				ev.Reasoning = true
			}
			if _, ok := d.JSON.ExtraFields[thinkingBlocks]; ok {
				ev.Blocks = true
			} else if _, ok := d.JSON.ExtraFields[contentBlocks]; ok {
				ev.Blocks = true
			}
		}
	}
	return ev
}

func (r chat) Fetch(ctx context.Context, client *openai.Client, opts []option.RequestOption) (Event, error, error) {
	res, err := client.Chat.Completions.New(ctx, r.sent(), opts...)
	if err != nil {
		return Event{}, nil, err
	}
	if res == nil {
		return Event{}, errNull, nil
	}
	if se := wholeError(res.RawJSON(), len(res.Choices) == 0); se != nil {
		return Event{}, serverError(se), nil
	}
	if f, ok := res.JSON.ExtraFields["base_resp"]; ok {
		if se := baseRespError(f.Raw()); se != nil {
			return Event{}, serverError(se), nil
		}
	}
	ev, err := r.wholeEvent(res)
	return ev, err, nil
}

// wholeEvent returns the event of res, a whole chat completion: its
// tool calls typed (PLaMo's written as text made calls, to the functions
// the request offered: see plamoCalls; gpt-oss's channels written as
// text split: see harmonyChannels), its finish reasons read as the server meant them, and
// its messages as the deltas of one chunk (see wholeChunk).
func (r chat) wholeEvent(res *openai.ChatCompletion) (Event, error) {
	offered := OfferedFunctions(r.p)
	plamoCalls(res, offered)
	harmonyChannels(res, offered)
	functionTypes(res)
	openAIFinish(res)
	blankWholeFinish(res)
	toolCallsFinish(res, true)
	noCallsFinish(res)
	for i := range res.Choices {
		messageParts(&res.Choices[i].Message)
		messageThoughts(&res.Choices[i].Message)
		messageReasoningObject(&res.Choices[i].Message)
	}
	llamaCppWholeLength(res, OutputLimit(r))
	dropPlaceholder(res.ID, &res.Usage, &res.JSON.Usage)
	c, err := wholeChunk(res)
	if err != nil {
		return Event{}, err
	}
	dropPlaceholder(c.ID, &c.Usage, &c.JSON.Usage) // the chunk is read anew from the raw answer
	return chunkEvent(c, res), nil
}

// wholeChunk returns the chat view of a whole response: one chunk whose
// choices' deltas hold their messages (content, refusal, tool calls, a
// legacy function call), with
// the response's id, model, finish reasons and usage.
func wholeChunk(res *openai.ChatCompletion) (*openai.ChatCompletionChunk, error) {
	c := new(openai.ChatCompletionChunk)
	if err := json.Unmarshal([]byte(res.RawJSON()), c); err != nil {
		return nil, err
	}
	for i := range c.Choices {
		if i >= len(res.Choices) {
			break
		}
		m := &res.Choices[i].Message
		d := &c.Choices[i].Delta
		d.Role = string(m.Role)
		d.Content, d.Refusal = m.Content, m.Refusal
		a := m.Audio
		d.Audio = openai.ChatCompletionChunkChoiceDeltaAudio{ID: a.ID, Data: a.Data, Transcript: a.Transcript, ExpiresAt: a.ExpiresAt}
		if f, ok := m.JSON.ExtraFields[imagesField]; ok {
			d.JSON.ExtraFields = map[string]respjson.Field{imagesField: f}
		}
		for j, tc := range m.ToolCalls {
			d.ToolCalls = append(d.ToolCalls, openai.ChatCompletionChunkChoiceDeltaToolCall{
				Index: int64(j), ID: tc.ID, Type: "function",
				Function: openai.ChatCompletionChunkChoiceDeltaToolCallFunction{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
			})
		}
		//lint:ignore SA1019 servers still answer the legacy functions API
		d.FunctionCall.Name, d.FunctionCall.Arguments = m.FunctionCall.Name, m.FunctionCall.Arguments
	}
	return c, nil
}

// outputBearing reports whether a delta carries generated output: content,
// reasoning (a reasoning field, or reasoning_details with text), a tool
// call, a refusal, audio or images. Role-only and empty deltas do not.
func outputBearing(d *openai.ChatCompletionChunkChoiceDelta) bool {
	if d.Content != "" || d.Refusal != "" || len(d.ToolCalls) > 0 || audioOutput(d) {
		return true
	}
	//lint:ignore SA1019 servers still stream legacy function calls; they are output
	if fc := d.FunctionCall; fc.Name != "" || fc.Arguments != "" {
		return true
	}
	for _, k := range reasoningFields {
		if f, ok := d.JSON.ExtraFields[k]; ok {
			if raw := f.Raw(); raw != "" && raw != "null" && raw != `""` {
				return true
			}
		}
	}
	if f, ok := d.JSON.ExtraFields[reasoningDetails]; ok && detailsText(f.Raw()) {
		return true
	}
	if f, ok := d.JSON.ExtraFields[imagesField]; ok {
		return strings.HasPrefix(f.Raw(), "[{")
	}
	return false
}

// imagesField is the field of a delta (and of a whole response's message)
// in which OpenRouter gives the images a model generates (modalities
// ["image","text"]): an array of image_url parts, data URLs of base64 PNG
// (openrouter.ai/docs/features/multimodal/image-generation). An answer
// may be an image alone.
const imagesField = "images"

// detailsText reports whether raw, a delta's reasoning_details, holds
// reasoning text or a summary of it: output, as a reasoning field's is.
// OpenRouter streams summaries there only, and MiniMax its reasoning when
// asked to keep it apart (reasoning_split); an encrypted item alone is
// not output the caller can see.
func detailsText(raw string) bool {
	found := false
	gjson.Parse(raw).ForEach(func(_, item gjson.Result) bool {
		found = item.Get("text").String() != "" || item.Get("summary").String() != ""
		return !found
	})
	return found
}

// ShowsReasoning reports whether ev streams reasoning text itself, as
// open models' servers do (a chat delta's reasoning field, a Responses
// reasoning_text delta): its tokens are then seen as they come. A summary
// of the reasoning (a Responses reasoning summary, reasoning_details) does
// not show it: the reasoning tokens the usage counts were spent before.
func ShowsReasoning(ev *Event) bool {
	if o, ok := ev.Orig.(*responses.ResponseStreamEventUnion); ok {
		return o.Type == respReasoningDelta || o.Type == respOldReasoning
	}
	if ev.Chunk == nil {
		return false
	}
	for i := range ev.Chunk.Choices {
		extra := ev.Chunk.Choices[i].Delta.JSON.ExtraFields
		if len(extra) == 0 {
			continue
		}
		for _, k := range reasoningFields {
			if f, ok := extra[k]; ok {
				if raw := f.Raw(); raw != "" && raw != "null" && raw != `""` {
					return true
				}
			}
		}
	}
	return false
}

// reasoningFields are the delta fields in which OpenAI-compatible servers
// (vLLM, DeepSeek, OpenRouter, llama.cpp) stream reasoning text.
var reasoningFields = [...]string{"reasoning_content", "reasoning"}

// MessageBytes returns the bytes of messages' content: their text, and
// the JSON of content that is not text (images, audio, files); text
// reports whether all of it was text.
func MessageBytes(messages []openai.ChatCompletionMessageParamUnion) (n int, text bool) {
	text = true
	for _, m := range messages {
		switch c := m.GetContent().AsAny().(type) {
		case *string:
			n += len(*c)
		case nil:
		case *[]openai.ChatCompletionContentPartTextParam:
			for _, p := range *c {
				n += len(p.Text)
			}
		case *[]openai.ChatCompletionContentPartUnionParam:
			for _, p := range *c {
				if p.OfText != nil {
					n += len(p.OfText.Text)
					continue
				}
				b, _ := json.Marshal(p)
				n, text = n+len(b), false
			}
		default:
			b, _ := json.Marshal(c)
			n, text = n+len(b), false
		}
	}
	return n, text
}
