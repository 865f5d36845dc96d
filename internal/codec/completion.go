package codec

import (
	"context"
	"encoding/json"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// completion is a completion's request (the completions API,
// fill-in-the-middle too).
// added: the client added stream_options to it (see AddedUsage); echo:
// the objects its echoed prompts add to an event (see echoObjects).
type completion struct {
	p     openai.CompletionNewParams
	added bool
	echo  int
}

// Completion returns the request of a completion. A streaming one asks
// for the usage event unless p says otherwise. A stop sequence given as a
// string is sent as a list of one (see stopList).
func Completion(p openai.CompletionNewParams, stream bool) Request {
	if s := p.Stop.OfString; s.Valid() {
		p.Stop = openai.CompletionNewParamsStopUnion{OfStringArray: stopList(s.Value)}
	}
	added := stream && !p.StreamOptions.IncludeUsage.Valid()
	if added {
		p.StreamOptions.IncludeUsage = openai.Bool(true)
	}
	return completion{p, added, echoObjects(p)}
}

// stopList returns stop, a stop sequence given as a string, as the list of
// one that a request sends in its place. The API takes either, but some
// servers take the list alone: TGI's chat completions (its stop is a
// Vec<String>: a string fails to decode, 422) and Bifrost (400 "invalid
// request format: Mismatch type []string with value string", seen live,
// v1.4.19), where bare openai-go's request fails.
func stopList(stop string) []string { return []string{stop} }

// AddedMaxTokens reports whether r, a chat completion whose caller set
// max_completion_tokens alone, sends it as max_tokens too. Servers that
// know only max_tokens ignore max_completion_tokens and answer without a
// limit: Ollama (ollama/ollama#7125, open in August 2026, where
// max_completion_tokens 10 gave 422 tokens, and 10,011 in an
// application), llama-cpp-python (abetlen/llama-cpp-python#1907), LM
// Studio. OpenAI's newer models refuse max_tokens (400, "Unsupported
// parameter: 'max_tokens' … Use 'max_completion_tokens' instead."), and
// some servers both fields together: such a request is sent again without
// it (see wire.RefusedFields).
func AddedMaxTokens(r Request) bool {
	c, ok := r.(chat)
	return ok && c.maxAdded
}

// AddedUsage reports whether r asks for usage (stream_options) only
// because the client added it: the caller's request did not say. Such a
// request may be sent without it to a server that refuses the field.
func AddedUsage(r Request) bool {
	switch r := r.(type) {
	case chat:
		return r.added
	case completion:
		return r.added
	}
	return false
}

func (completion) API() API { return APICompletions }

// MaxObjects bounds a chunk's objects as a chat chunk's, and, for a
// request that echoes its prompt with log probabilities, by the objects
// of the echo too (see echoObjects): the first chunk holds them all.
func (r completion) MaxObjects() int { return maxChunkObjects + r.echo }

// addedPromptTokens is how many tokens a server may put in a prompt beside
// its text's (a BOS token, a chat template's few), which an echo's log
// probabilities count too.
const addedPromptTokens = 16

// echoObjects returns the JSON objects the echoed prompts add to an
// answer whose request params ask for echo and logprobs: the log
// probabilities of each prompt token, its top_logprobs one object (two,
// counted as the chat API's alternatives are, for servers that send
// that shape), for each choice of each prompt. vLLM and SGLang send them
// all in the first chunk, with the first token
// (vllm/entrypoints/openai/completion/serving.py,
// completion_stream_generator; sglang/srt/entrypoints/openai/
// serving_completions.py): a prompt of thousands of tokens makes a chunk
// of thousands of objects. A prompt has at most a token per byte of its
// text (byte fallback), or the token ids it was given as; 0 without echo
// or logprobs.
func echoObjects(params openai.CompletionNewParams) int {
	if !params.Echo.Value || !params.Logprobs.Valid() {
		return 0
	}
	p := params.Prompt
	tokens := len(p.OfString.Value) + len(p.OfArrayOfTokens)
	for _, s := range p.OfArrayOfStrings {
		tokens += len(s)
	}
	for _, ids := range p.OfArrayOfTokenArrays {
		tokens += len(ids)
	}
	prompts := max(len(p.OfArrayOfStrings), len(p.OfArrayOfTokenArrays), 1)
	return 2 * int(min(max(params.N.Or(1), 1), MaxChoices)) * (tokens + prompts*addedPromptTokens)
}

func (r completion) PromptBytes() int {
	if s := r.p.Prompt.OfString; s.Valid() {
		return len(s.Value) + len(r.p.Suffix.Value)
	}
	return 0
}

// Choices counts n choices for each prompt: a prompt given as several
// strings, or several token arrays, is answered choice by choice, the
// choices of the second prompt after the first's (index = prompt × n + j).
func (r completion) Choices() int {
	return choices(int64(r.prompts()) * max(r.p.N.Or(1), 1))
}

// Prompts counts the strings or token arrays of a prompt given as a list;
// one otherwise.
func (r completion) Prompts() int { return min(r.prompts(), r.Choices()) }

// prompts counts the prompts the request holds, unbounded.
func (r completion) prompts() int {
	return max(len(r.p.Prompt.OfArrayOfStrings), len(r.p.Prompt.OfArrayOfTokenArrays), 1)
}
func (r completion) CanContinue() bool { return r.p.Prompt.OfString.Valid() }

// View returns its model, max_tokens, and its prompt and suffix as one
// message.
func (r completion) View() openai.ChatCompletionNewParams {
	prompt := ""
	if s := r.p.Prompt.OfString; s.Valid() {
		prompt = s.Value
	} else if b, err := json.Marshal(r.p.Prompt); err == nil {
		prompt = string(b)
	}
	return openai.ChatCompletionNewParams{
		Model:     string(r.p.Model),
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt + r.p.Suffix.Value)},
		MaxTokens: r.p.MaxTokens,
	}
}

func (r completion) Model() string { return string(r.p.Model) }

// For returns the request for model; a continuation appends the text so
// far to the prompt (the suffix stays) and reduces max_tokens by the
// tokens delivered: the server completes where the text stops.
func (r completion) For(model string, cont *Continuation) Request {
	p := r.p
	p.Model = openai.CompletionNewParamsModel(model)
	if cont != nil {
		p.Prompt.OfString = openai.String(p.Prompt.OfString.Value + cont.Text)
		if p.MaxTokens.Valid() {
			p.MaxTokens = openai.Int(max(1, p.MaxTokens.Value-cont.Delivered))
		}
	}
	return completion{p, r.added, echoObjects(p)}
}

func (r completion) Stream(ctx context.Context, client *openai.Client, opts []option.RequestOption) Closer {
	return client.Completions.NewStreaming(ctx, r.p, opts...)
}

func (r completion) Decode(data []byte) (Event, error) {
	if ev, ok := ParseLlamaCpp(data); ok {
		// llama.cpp's server of 2024 at /v1/completions (see
		// LlamaCppEvent): the chunk its event says, its own id and
		// creation time left out, as it has none.
		data = ev.Completion("", r.Model(), 0, false)
	} else if chunk, ok := writerValue(data, r.Model()); ok {
		data = chunk // Writer's own format (see writerValue)
	}
	comp := new(openai.Completion)
	if err := unmarshal(data, comp); err != nil {
		return Event{}, malformed(data, err)
	}
	if s := rawError(data, comp.JSON.ExtraFields["error"].Raw(), comp.JSON.Object.Raw()); s != nil {
		return Event{}, serverError(s)
	}
	if s := codeError(comp.JSON.ExtraFields, len(comp.Choices)); s != nil {
		return Event{}, serverError(s)
	}
	if s := errorTypeFrame(comp.JSON.ExtraFields, len(comp.Choices)); s != nil {
		return Event{}, serverError(s)
	}
	if s := localAIError(data, comp); s != nil {
		return Event{}, serverError(s)
	}
	for i := range comp.Choices {
		ch := &comp.Choices[i]
		ch.FinishReason = finishReason(ch.FinishReason, nativeFinish(ch.JSON.ExtraFields, comp.JSON.ExtraFields, ch.FinishReason != ""))
		chatShapedText(&comp.Choices[i])
		dropEOSToken(&comp.Choices[i])
	}
	ev := completionEvent(comp)
	if err := checkChoices(ev.Chunk, r.Choices()); err != nil {
		return Event{}, err
	}
	ev.Outputs -= r.echoes(comp)
	return ev, nil
}

// echoes returns how many choices of comp, a chunk of a stream that
// echoes its prompt, hold the prompt alone: no output, sent before the
// model read the prompt. text-generation-webui's /v1/completions sends
// the echo so, as a chunk of its own before any token
// (oobabooga/text-generation-webui extensions/openai/completions.py,
// completions_common); read as output, TTFT stopped at the echo, a
// prefill early. A chunk that holds the prompt and the first token
// (OpenAI's, vLLM's, FastDeploy's) is output.
func (r completion) echoes(comp *openai.Completion) int {
	prompt := r.p.Prompt.OfString
	if !r.p.Echo.Value || !prompt.Valid() || prompt.Value == "" {
		return 0
	}
	n := 0
	for i := range comp.Choices {
		if ch := &comp.Choices[i]; ch.Text == prompt.Value && ch.FinishReason == "" {
			n++
		}
	}
	return n
}

func (r completion) Fetch(ctx context.Context, client *openai.Client, opts []option.RequestOption) (Event, error, error) {
	res, err := client.Completions.New(ctx, r.p, opts...)
	if err != nil {
		return Event{}, nil, err
	}
	if res == nil {
		return Event{}, errNull, nil
	}
	if ev, ok := ParseLlamaCpp([]byte(res.RawJSON())); ok && len(res.Choices) == 0 {
		// llama.cpp's server of 2024 (see LlamaCppEvent): the completion
		// its answer says.
		res = new(openai.Completion)
		if err := json.Unmarshal(ev.Completion("", r.Model(), 0, true), res); err != nil {
			return Event{}, err, nil
		}
	}
	if se := wholeError(res.RawJSON(), len(res.Choices) == 0); se != nil {
		return Event{}, serverError(se), nil
	}
	for i := range res.Choices {
		chatShapedText(&res.Choices[i])
	}
	dropPlaceholder(res.ID, &res.Usage, &res.JSON.Usage)
	return completionEvent(res), nil, nil
}

// completionEvent returns a completions event with its chat view: its id
// and model, and per choice its index, finish reason and text as the
// delta's content. The usage is the event's own.
func completionEvent(comp *openai.Completion) Event {
	c := &openai.ChatCompletionChunk{ID: comp.ID, Model: comp.Model, Created: comp.Created}
	if len(comp.Choices) > 0 {
		c.Choices = make([]openai.ChatCompletionChunkChoice, len(comp.Choices))
		for i := range comp.Choices {
			ch := &comp.Choices[i]
			c.Choices[i] = openai.ChatCompletionChunkChoice{
				Index:        ch.Index,
				FinishReason: string(ch.FinishReason),
				Delta:        openai.ChatCompletionChunkChoiceDelta{Content: ch.Text},
			}
			c.Choices[i].Delta.JSON.ExtraFields = choiceReasoning(ch)
		}
	}
	ev := chunkEvent(c, comp)
	ev.Usage, ev.HasUsage = usageIn(&comp.Usage, comp.JSON.Usage.Valid(), comp.JSON.ExtraFields)
	return ev
}

// choiceReasoning returns the reasoning fields of ch, a completion's
// choice, for its chat view's delta, or nil when it has none: LiteLLM's
// proxy makes a completions stream of a chat model's chunks, and puts the
// delta's reasoning_content on each choice beside a text that is null
// while the model reasons (BerriAI/litellm litellm/utils.py,
// TextCompletionStreamWrapper.convert_to_text_completion_object). That
// reasoning is output, as it is in a chat stream: the first token, and a
// stream that is not silent.
func choiceReasoning(ch *openai.CompletionChoice) map[string]respjson.Field {
	var m map[string]respjson.Field
	for _, k := range reasoningFields {
		if f, ok := ch.JSON.ExtraFields[k]; ok {
			if m == nil {
				m = make(map[string]respjson.Field, len(reasoningFields))
			}
			m[k] = f
		}
	}
	return m
}

// WholeCompletion reports whether ev, a completions event, is a whole
// completion: the object "text_completion" with choices that all
// finished, as a server that does not stream answers a streamed request
// (Shimmy: Michael-A-Kuykendall/shimmy, src/openai_compat/mod.rs,
// completions, whatever the request's stream). A chunk has the same
// shape: only its place, the whole body, tells it apart.
func WholeCompletion(ev Event) bool {
	comp, ok := ev.Orig.(*openai.Completion)
	if !ok || comp.JSON.Object.Raw() != `"text_completion"` || len(comp.Choices) == 0 {
		return false
	}
	for i := range comp.Choices {
		if comp.Choices[i].FinishReason == "" {
			return false
		}
	}
	return true
}
