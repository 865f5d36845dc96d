package tokenpace

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strconv"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/tokenpace/tokenpace/internal/codec"
	"github.com/tokenpace/tokenpace/internal/sse"
	"github.com/tokenpace/tokenpace/internal/wire"
)

// ErrStreamClosed is the Timing.Err of a request whose caller closed the
// stream before it ended. Stream.Err stays nil in that case, as with
// openai-go's streams.
var ErrStreamClosed = errors.New("tokenpace: stream closed before its end")

// ErrorKind classifies a StreamError.
type ErrorKind int

// Kinds of StreamError.
const (
	// KindRequest: the HTTP call failed before any event was read (a
	// transport error, or an error status, whose *openai.Error Unwrap
	// reaches).
	KindRequest ErrorKind = iota + 1
	// KindContentType: a 2xx response that is no event stream: not
	// labelled text/event-stream, and, read, no stream either (a JSON
	// object, an HTML page, nothing; a JSON error is KindErrorEvent, and
	// a whole completion on one line, answering a completions stream, is
	// read as its one chunk: Shimmy; so is a whole chat completion
	// answering a chat stream: TabbyAPI). A
	// stream labelled otherwise is read, as openai-go reads it;
	// Timing.Streaming keeps its label.
	KindContentType
	// KindMalformed: an event whose data is not a valid chunk.
	KindMalformed
	// KindErrorEvent: the server sent an error object in the stream (an
	// event, an error: field, a bare JSON error relayed without framing,
	// or a JSON error body instead of the stream), or in the place of a
	// whole answer; Unwrap reaches it as an *openai.Error.
	KindErrorEvent
	// KindTruncated: the body ended without the closing [DONE] event
	// (Detail "no [DONE] event"; for a Responses stream, without its
	// final event, "no final event"); or
	// [DONE] came before any finish reason, whatever usage came (Detail
	// "no finish_reason": relays such as one-api and new-api write [DONE]
	// when their upstream breaks mid-answer, new-api after a usage of its
	// own), or before every choice asked had finished, or a whole answer
	// came with fewer choices than asked (Detail "1 of 2 choices
	// finished");
	// or the answer ended with a finish reason by which the server says it
	// stopped the answer itself (Detail `finish_reason "abort"`: vLLM and
	// SGLang on an engine abort, "error", DeepSeek's
	// "insufficient_system_resource"), [DONE] or not; or a chat chunk
	// began the answer again under a new id, as a server that sends the
	// request to another instance mid-answer relays that one's answer
	// after the first's start (Detail "answer begun again": Chutes), or a
	// Responses stream a second response.created after output (LiteLLM's
	// proxy forwarding its fallback's whole answer); or
	// an event's JSON ended before its value did and the body ended after
	// it, as a relay frames the bytes it had read when its own read of
	// the answer was cut (Detail "event cut short": Targon's hub; followed
	// by another event, it is KindMalformed); or
	// a chunk of a stream that sends its text whole so far changed text
	// the caller was given already (Detail "text sent whole so far
	// changed": DashScope's Qwen-MT); or
	// a chat chunk stood for an error whose message its server dropped
	// (Detail "error chunk without its message": AnythingLLM, see
	// codec.DroppedError); or,
	// for a Router call, the continuation or restart meant to carry on a
	// broken output ended cleanly without any (Detail "continuation ended
	// without output", "restart ended without output"), so the output the
	// caller holds is still incomplete.
	KindTruncated
	// KindReset: reading the body failed mid-stream (connection reset,
	// unexpected EOF).
	KindReset
	// KindTooLarge: what a server sent would take more memory than the
	// client allows: a line of the event stream (Detail "line"), or the
	// data of one event over all its lines (Detail "event"), longer than
	// WithMaxLineBytes; an event with more JSON objects than any real
	// chunk holds, or more choices than the request's n; an error body (or
	// a non-streaming response) longer than its bound. Detail says which.
	// Err, for a body, wraps what was read of it.
	KindTooLarge
	// KindPanic: a function of the caller's (a hook, a middleware, a
	// milestone predicate or a validator) panicked; the call ended with
	// this error instead of crashing the program (Detail names the
	// function, Err holds the panic value and its stack).
	KindPanic
	// KindSkipped: a Router's route was not tried; Err is ErrCircuitOpen
	// (its breaker was open) or ErrAdmission (admission turned it away).
	KindSkipped
	// KindInvalid: a validator rejected the output (see Policy.Validator).
	// errors.Is matches ErrInvalidOutput, and Unwrap reaches the
	// validator's error through Err.
	KindInvalid
)

var kindNames = [...]string{
	KindRequest:     "request failed",
	KindContentType: "wrong content type",
	KindMalformed:   "malformed event",
	KindErrorEvent:  "error event",
	KindTruncated:   "stream truncated",
	KindReset:       "stream reset",
	KindTooLarge:    "too large",
	KindPanic:       "panic in a caller's function",
	KindSkipped:     "skipped",
	KindInvalid:     "output rejected",
}

// String returns a short description of k.
func (k ErrorKind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// StreamError is how a request ended when it did not end cleanly, other than
// by context cancellation (which Stream.Err reports unchanged). Unwrap
// reaches the cause, so errors.As finds an *openai.Error for error statuses
// and error events.
//
// Its message never holds the server's error text, which may echo request
// data: read that from the wrapped *openai.Error.
type StreamError struct {
	// Kind says what went wrong.
	Kind ErrorKind
	// Target names the target that failed; empty for a plain call.
	Target string
	// Detail is a short, data-free description (a content type, an event
	// number, the name a server gave its error, such as
	// exceed_context_size_error); empty when Kind says it all.
	Detail string
	// Err is the cause; nil for KindTruncated and KindContentType.
	Err error
}

// Error implements error.
func (e *StreamError) Error() string {
	msg := "tokenpace: " + e.Kind.String()
	if e.Target != "" {
		msg += " on target " + e.Target
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Err != nil {
		// An *openai.Error prints its status only; its server message
		// stays reachable through errors.As.
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the cause.
func (e *StreamError) Unwrap() error { return e.Err }

// As lets errors.As find, in the error of a stream that an error event
// ended (KindErrorEvent), the *ssestream.StreamError openai-go's own
// stream ends with there, so that code written for openai-go's Err works
// on: its Message is openai-go's ("received error while streaming: " and
// the server's error object), its Event holds that object under "error".
func (e *StreamError) As(target any) bool {
	t, ok := target.(**ssestream.StreamError)
	if !ok || e.Kind != KindErrorEvent {
		return false
	}
	var apiErr *openai.Error
	if !errors.As(e.Err, &apiErr) {
		return false
	}
	raw := apiErr.RawJSON()
	if raw == "" {
		b, _ := json.Marshal(map[string]string{"code": apiErr.Code, "message": apiErr.Message, "type": apiErr.Type})
		raw = string(b)
	}
	*t = &ssestream.StreamError{
		Message: "received error while streaming: " + raw,
		Event:   ssestream.Event{Data: []byte(`{"error":` + raw + `}`)},
	}
	return true
}

// droppedErrorDetail is the Detail of a stream cut at a chunk that stood
// for an error whose message its server dropped (see codec.DroppedError).
const droppedErrorDetail = "error chunk without its message"

// finishDetail is the Detail of the KindTruncated error of an answer
// whose server said by its finish reason that it stopped the answer
// itself (see codec.FailedFinish).
func finishDetail(reason string) string { return "finish_reason " + strconv.Quote(reason) }

// wholeCut returns the error of ev, a whole answer to a request for
// asked choices that its server stopped: by a failed finish reason (see
// codec.FailedFinish), or without a word (see codec.Unfinished), or with
// fewer choices than asked (see cutBeforeDone), KindTruncated; with its
// first choice alone, a server that ignores n (see errNIgnored),
// KindRequest; nil for an answer.
func wholeCut(ev codec.Event, asked int, target string) *StreamError {
	c := ev.Chunk
	switch {
	case c != nil && len(c.Choices) > 0 && codec.FailedFinish(c.Choices[0].FinishReason):
		return &StreamError{Kind: KindTruncated, Target: target, Detail: finishDetail(c.Choices[0].FinishReason)}
	case codec.Unfinished(ev):
		return &StreamError{Kind: KindTruncated, Target: target, Detail: "no finish_reason"}
	case c != nil && len(c.Choices) == 1 && c.Choices[0].Index == 0 && oneChoiceOfMany(asked, true, true):
		return &StreamError{Kind: KindRequest, Target: target, Detail: nIgnoredDetail, Err: errNIgnored}
	case c != nil && len(c.Choices) < asked:
		return &StreamError{Kind: KindTruncated, Target: target, Detail: choicesDetail(len(c.Choices), asked)}
	}
	return nil
}

// oneChoiceOfMany reports whether an answer to a request for asked
// choices, whose first choice alone came (only) and finished (finished),
// is a server's that ignores n (see errNIgnored).
func oneChoiceOfMany(asked int, only, finished bool) bool {
	return asked > 1 && only && finished
}

// errNIgnored is the cause of the KindRequest error of an answer to a
// request for several choices (n above 1) that holds the first alone,
// finished: its server ignores n. KoboldCpp, Ollama (0.12.6 among others),
// AxonHub and Laisky's fork of one-api (which asks its upstream's
// Responses API for one answer) do, with nothing to say so (all seen
// live). The choice that came is kept; the error is the request's, not
// the server's health, and counts against no breaker.
var errNIgnored = errors.New("the server answered the first choice alone: it ignores n")

// nIgnoredDetail is the Detail of errNIgnored's error.
const nIgnoredDetail = "n_ignored"

// choicesDetail is the Detail of the KindTruncated error of an answer of
// which only finished of asked choices came whole.
func choicesDetail(finished, asked int) string {
	return fmt.Sprintf("%d of %d choices finished", finished, asked)
}

// Internal causes with which a call stops an attempt.
var (
	errHedgeLost = errors.New("tokenpace: another hedged request produced a token first")
	errCallEnded = errors.New("tokenpace: the request ended")
)

// refusal classifies err, why the codec refused an event of res: an
// error event is KindErrorEvent with the server's error as an
// *openai.Error, an event over a bound KindTooLarge, a stream assembled
// into a whole response that ended before its answer KindTruncated, any
// other KindMalformed.
func refusal(err error, res *http.Response) (ErrorKind, string, error) {
	var ce *codec.Error
	if !errors.As(err, &ce) {
		return KindMalformed, "", err
	}
	switch {
	case ce.Server != nil:
		apiErr := &openai.Error{StatusCode: res.StatusCode, Request: res.Request, Response: res}
		if err := ce.Server.Fill(apiErr); err != nil {
			return KindMalformed, "", err
		}
		if s := streamedStatus(ce.Server, apiErr); s != 0 && res.StatusCode < 300 {
			apiErr.StatusCode = s
		}
		detail := errorName(apiErr.Type) // a chat or completions server's error type
		if ce.Server.Raw == "" {
			detail = errorName(ce.Server.Code) // a Responses error event's code
		}
		return KindErrorEvent, detail, apiErr
	case ce.TooLarge:
		return KindTooLarge, ce.Detail, nil
	case ce.Truncated:
		return KindTruncated, ce.Detail, nil
	case ce.Err != nil:
		return KindMalformed, "", ce.Err
	}
	return KindMalformed, ce.Detail, nil
}

// statusDetail is the Detail of a request that failed with err: the name
// the server gave its error, if err is an error status with one
// (exceed_context_size_error, model_not_found…), else "".
func statusDetail(err error) string {
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		return ""
	}
	return cmp.Or(errorName(apiErr.Code), errorName(apiErr.Type))
}

// errorName returns s, a server's error code or type, if it reads as the
// name of an error: 1 to 64 lower-case letters and underscores, as
// OpenAI's and the open servers' names are (invalid_request_error,
// context_length_exceeded). Anything else, such as a number, free text,
// or what could be a key echoed back, gives "": a StreamError's message
// holds no data of the server's.
func errorName(s string) string {
	if len(s) == 0 || len(s) > 64 {
		return ""
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '_' {
			return ""
		}
	}
	return s
}

// panicError is a recovered panic: its value, and the stack of the
// goroutine it happened on.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v\n\n%s", e.value, e.stack) }

// recoverInto, deferred, makes a panic in the function that deferred it
// that function's error.
func recoverInto(err *error) {
	if v := recover(); v != nil {
		*err = &panicError{value: v, stack: debug.Stack()}
	}
}

// noDone is the Detail of a KindTruncated error for a body that ended
// before [DONE]; for a Responses stream, "no final event" (it ends at
// response.completed or response.incomplete).
const noDone = "no [DONE] event"

// readKind classifies an error of an event-stream reader: the end of the
// body before [DONE] is KindTruncated, a line or event or body over its
// bound KindTooLarge, a panic in the Read of a body a middleware of the
// caller's gave KindPanic, any other KindReset.
func readKind(err error) (ErrorKind, string, error) {
	var pe *panicError
	switch {
	case errors.As(err, &pe):
		return KindPanic, "response body", err
	case err == io.EOF:
		return KindTruncated, noDone, nil
	case errors.Is(err, sse.ErrEventTooLong):
		return KindTooLarge, "event", err
	case errors.Is(err, bufio.ErrTooLong):
		return KindTooLarge, "line", err
	case errors.Is(err, wire.ErrBodyTooLarge):
		return KindTooLarge, "body", err
	default:
		return KindReset, "", err
	}
}

// errFieldIgnored is the cause of the refusal of a stream that its
// server made without its request's suffix or echo (see
// exchange.fieldIgnored).
var errFieldIgnored = errors.New("the answer was made without the request's suffix or echo")

// errChoicesGlued is the cause of the refusal of a stream that LocalAI
// sends in answer to a request for more than one choice: it streams the
// choices one after the other, all as choice 0, so that the first
// choice's text would be every choice's run together (seen live, 2026).
var errChoicesGlued = errors.New("LocalAI streams the choices of a request with n above 1 one after the other, as one choice: ask for them without streaming")

// errPromptsGlued is the cause of the refusal of a stream that LMDeploy's
// api_server sends in answer to a completions request of several prompts:
// it streams their completions one after the other, all as choice 0, each
// with a finish chunk of its own
// (lmdeploy/serve/openai/endpoints/completions.py,
// completion_stream_generator), so that the first choice's text would be
// every prompt's run together.
var errPromptsGlued = errors.New("LMDeploy streams the completions of a list of prompts one after the other, as one choice: ask for them without streaming, or one prompt a request")
