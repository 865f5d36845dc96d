// Package codec holds what the calls of each OpenAI API differ in: how a
// request is sent through openai-go, continued and bounded, and how each
// event it streams back is decoded into one chat view, through which
// timing and policies see every API alike. An attempt holds one Request
// and never asks which API it calls.
package codec

import (
	"context"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// API names an API as tokenpace's Timing does: "" for chat completions,
// "completions", "responses".
type API string

// The APIs.
const (
	APIChat        API = ""
	APICompletions API = "completions"
	APIResponses   API = "responses"
)

// Closer is what an attempt keeps of openai-go's stream of any API: the
// error of the call and the means to close it. The attempt reads the body
// itself.
type Closer interface {
	Err() error
	Close() error
}

// Request is one call's request in one API. Its methods do not change it;
// For returns a new one.
type Request interface {
	// API returns the API the request calls.
	API() API
	// Model returns the model the request asks for.
	Model() string
	// View returns the chat params through which policies see the
	// request: its model, its max tokens, and its prompt as messages, for
	// the prompt-token estimate.
	View() openai.ChatCompletionNewParams
	// For returns the request of a try that asks for model; cont, when
	// not nil, makes it carry on the output the caller has received.
	For(model string, cont *Continuation) Request
	// CanContinue reports whether a continuation can carry on this
	// request's output (a completion needs its prompt as one string).
	CanContinue() bool
	// Choices returns how many choices the request asked for (its n),
	// between 1 and MaxChoices.
	Choices() int
	// Prompts returns how many prompts the request holds, between 1 and
	// Choices: a completion's list of prompts is answered prompt by
	// prompt, Choices / Prompts choices each.
	Prompts() int
	// MaxObjects returns how many JSON objects one event may hold.
	MaxObjects() int
	// PromptBytes returns the bytes of the prompt's text: the messages'
	// text, the completion's prompt and suffix, the Responses input
	// string; 0 when the prompt holds anything but text (images, files,
	// token ids), whose tokens its bytes do not tell.
	PromptBytes() int
	// Stream makes the streaming request through openai-go.
	Stream(ctx context.Context, client *openai.Client, opts []option.RequestOption) Closer
	// Fetch makes the non-streaming request and returns the whole
	// response as one event. err is the request's error; refused, when
	// err is nil, why the response is not the API's: an *Error whose
	// Server is the error the body holds in the place of an answer (a
	// failed response, an "error" member without choices), or another
	// error.
	Fetch(ctx context.Context, client *openai.Client, opts []option.RequestOption) (ev Event, refused, err error)
	// Decode decodes the data of one event. Its error is an *Error: the
	// event is malformed, over a bound, or an error the server sent.
	Decode(data []byte) (Event, error)
	// whole returns what gathers the events of a stream into the whole
	// response of the API (see Assemble).
	whole() wholeBuilder
}

// RestartsOnly reports whether no continuation can carry r's output on:
// an answer of several choices (a continuation carries one choice's
// text), a completion that echoes its prompt (its output begins with
// the prompt, which a continuation would put in the prompt twice), or a
// structured answer (see Structured), or a spoken one (see Spoken). A Router restarts such a call
// instead; it also reads the bodies it sent for a constraint that r's
// parameters do not show (see Constrained).
func RestartsOnly(r Request) bool {
	if r.Choices() > 1 || Structured(r) || Spoken(r) {
		return true
	}
	c, ok := r.(completion)
	return ok && c.p.Echo.Value
}

// Decoder decodes the events of one stream in order (see Request.Decode).
type Decoder interface {
	Decode(data []byte) (Event, error)
}

// DoneFinisher is a Decoder that may answer [DONE] with a last event of
// its own: the finish reason its server left out (see TGIToolStream).
type DoneFinisher interface {
	AtDone() (ev Event, ok bool)
}

// BareDoneFinisher is a Decoder that may answer a [DONE] that ends the
// body with no line break with a last event of its own: the finish
// reason a relay that writes its [DONE] so dropped (see ChatStream.AtBareDone).
type BareDoneFinisher interface {
	AtBareDone() (ev Event, ok bool)
}

// ErrorHolder is a Decoder that may hold a server's error back for the
// event after it, which may give its reason (see ResponseStream): at the
// end of the body, HeldError returns the error it still holds.
type ErrorHolder interface {
	HeldError() error
}

// DecoderFor returns what decodes the events of one stream of req, in
// order: req itself when each event decodes alone, or a decoder that
// keeps what the API needs of the events before (a Responses stream:
// ResponseStream; a chat stream, whose finish TGI's tool calls and the
// servers of finishless leave out: ChatStream; a completions stream,
// whose answer OpenLLM 0.3 ends without one: OpenLLMCompletionStream).
func DecoderFor(req Request) Decoder {
	switch r := req.(type) {
	case response:
		return &ResponseStream{response: r}
	case chat:
		return &ChatStream{TGIToolStream: TGIToolStream{chat: r}}
	case completion:
		return &OpenLLMCompletionStream{completion: r}
	}
	return req
}

// Continuation is what a try that carries on the caller's output sends
// on from.
type Continuation struct {
	Text      string // the output the caller has received
	Delivered int64  // its tokens: taken off the request's max tokens
	Prompt    string // the user message after it (chat and Responses)
	// Reasoning is the reasoning_content of the output, which a chat
	// server may want back with it (see Reasoning).
	Reasoning string
}

// Event is one decoded event, or a whole non-streaming response, with its
// chat view.
type Event struct {
	// Chunk is the chat view: for the completions API, per choice its
	// index, finish reason and text as the delta's content; for the
	// Responses API one choice holding the output text or refusal.
	Chunk *openai.ChatCompletionChunk
	// Orig is the event as its API sent it: *openai.ChatCompletionChunk
	// (Chunk itself), *openai.Completion or
	// *responses.ResponseStreamEventUnion; for a whole response
	// *openai.ChatCompletion, *openai.Completion or *responses.Response.
	Orig any
	// Outputs is how many output-bearing deltas the event carries.
	Outputs int
	// Usage is the usage the event reports, when HasUsage.
	Usage    Usage
	HasUsage bool
	// Final: the event ends the answer (a Responses stream's
	// response.completed or response.incomplete); End then says how.
	Final bool
	End   *End
	// ToolCall: the event carries a tool or function call.
	ToolCall bool
	// Refusal: the event carries a piece of a refusal, which, like a
	// tool call, no text continuation can carry on.
	Refusal bool
	// Audio: the event carries audio (a chat delta's audio field: a
	// piece of the audio or of its transcript, or its id or expiry; a
	// Responses audio event): output that, like a tool call, no text
	// continuation can carry on.
	Audio bool
	// Spoken: the event is of an answer its server speaks once its text
	// is whole (vLLM-Omni's audio stage, see audioStaged): a
	// continuation's audio would speak only the words after the text so
	// far, so no continuation can carry it on.
	Spoken bool
	// Details: the event carries reasoning_details (OpenRouter; see
	// Details).
	Details bool
	// Reasoning: the event's first choice carries a reasoning_content
	// piece (see Reasoning).
	Reasoning bool
	// Blocks: the event's first choice carries thinking blocks as a relay
	// of Claude streams them (thinking_blocks, content_blocks; see
	// SignedBlocks), which may come with no reasoning beside them: LiteLLM
	// streams a redacted block whole and alone.
	Blocks bool
	// Frame: the event's text is the whole answer so far of each choice
	// it brings text to, a diffusion model's refinement step, replacing
	// the text of the steps before it in its run, not text of another
	// kind before the run (see diffusionFrame and frameRun); its deltas
	// count as no tokens toward its max tokens (see lengthFinish), though
	// Timing counts each step as one without a usage chunk, and no text
	// continuation can carry on from its noise.
	Frame bool
	// Pending: a whole Responses response that has not finished, a
	// background one queued or under way: the answer is the response to
	// poll, neither empty nor cut.
	Pending bool
	// Items: the event carries a Responses reasoning item whole (an
	// output_item.done of one, a final or whole response whose output
	// holds one), whose maker the client keeps (see ReasoningItems).
	Items bool
}

// ID returns the id the server gave the answer, as the event carries it:
// its chat view's, or, for the Responses API, its response's; "" for an
// event that carries none.
func (e *Event) ID() string {
	if e.Chunk != nil && e.Chunk.ID != "" {
		return e.Chunk.ID
	}
	switch o := e.Orig.(type) {
	case *openai.Completion:
		return o.ID
	case *openai.ChatCompletion:
		return o.ID
	case *responses.ResponseStreamEventUnion:
		return o.Response.ID
	case *responses.Response:
		return o.ID
	}
	return ""
}

// Fields of a tool call's turn that a server may want back on the next
// request (see CallExtras).
const (
	extraContent     = "extra_content"     // on a call: Gemini 3's thought signature
	reasoningDetails = "reasoning_details" // on the message: OpenRouter's reasoning
)

// End is what the final event of a Responses stream says of the answer.
type End struct {
	Reason string // "stop" once completed, else why it is incomplete
	// Usage, when HasUsage, as the Responses API counts it.
	HasUsage                   bool
	Input, CachedInput, Output int64
	Reasoning                  int64 // of Output, the reasoning tokens
}
