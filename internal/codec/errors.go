package codec

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/tidwall/gjson"

	"github.com/tokenpace/tokenpace/internal/sse"
)

// Error is why an event was refused.
type Error struct {
	// TooLarge: the event is over a bound (not malformed).
	TooLarge bool
	// Truncated: an event stream assembled into a whole response (see
	// Assemble) ended before its answer did, a chunk changed text a
	// stream sent whole so far had given already (see wholeSoFar),
	// another provider started the answer over (see providerSwitch), or
	// an event's JSON ends before its value does (see cutShort).
	Truncated bool
	// Server is the error the server sent as an event, when it did.
	Server *ServerError
	// Rejected: Server is the server's verdict on the answer it streamed
	// before, whose output is restarted, never continued (see
	// AnswerRejected).
	Rejected bool
	Detail   string // what is wrong, for a person
	Err      error  // the decoding error, if any
}

func (e *Error) Error() string {
	switch {
	case e.Server != nil:
		return "codec: error event: " + e.Server.Message
	case e.Err != nil:
		return fmt.Sprintf("codec: %s: %v", e.Detail, e.Err)
	}
	return "codec: " + e.Detail
}

func (e *Error) Unwrap() error { return e.Err }

// ServerError is an error a server sent in an event. Raw, when set, is the
// error as sent by a chat or completions server (an object, or a bare
// message string); else Code, Message and Param are what the codec read
// of a Responses error event, or of an error a chat or completions server
// wrote in a shape of its own (MiniMax's base_resp, FastChat's
// error_code, a failure written as the answer's text). Type is the
// error_type sent beside a bare message string, as TGI's router writes
// its errors ({"error": string, "error_type": …},
// huggingface/text-generation-inference router/src/server.rs, kept by
// LoRAX), or the type of a Responses error event's nested error: its
// name for the kind of error, from which the status of the answer it
// would have made before its stream began is known; with no Raw,
// BaseRespType marks MiniMax's base_resp, and RTP-LLM's error_code_str
// ("511_LONG_PROMPT_ERROR") is the name beside its error_code. Beside a bare message string,
// Code is the number a server sent as the event's "code", its own code
// for the failure (GenieX's SDK error code:
// {"code":-200103,"error":"SDKError(Input prompt too long)"},
// qualcomm/GenieX cli/server/handler/completion.go, streamCompletion).
//
// Text marks an error that came as a bare line of text ending the body
// (see sse.ErrorLine), Message its text: only the words tell what failed.
//
// Flat is a Responses error event whose code and message are at its top
// level, as the server sent it: a relay that committed its 200 stream
// before its upstream answered names that answer's status there, beside
// them (OmniRoute's status_code, diegosouzapw/OmniRoute
// open-sse/utils/earlyStreamKeepalive.ts, buildResponsesErrorDataLine).
type ServerError struct {
	Raw                  string
	Code, Message, Param string
	Type                 string
	Text                 bool
	Flat                 string
}

// Fill sets the type, code and message of into, an error as openai-go
// reports one, to the event's (the type Type names when Raw names none);
// its error says why Raw is not an error.
func (s *ServerError) Fill(into *openai.Error) error {
	if s.Raw == "" {
		into.Code, into.Message, into.Param, into.Type = s.Code, s.Message, s.Param, respError
		return nil
	}
	var msg string
	if json.Unmarshal([]byte(s.Raw), &msg) == nil {
		into.Message, into.Type = msg, s.Type
		return nil
	}
	if err := into.UnmarshalJSON([]byte(s.Raw)); err != nil {
		return err
	}
	if into.Type == "" {
		into.Type = s.Type // named beside the object (see errorTypeFrame)
	}
	if m := cmp.Or(wrappedMessage(s.Raw), workerVLLMMessage(s.Raw)); m != "" {
		into.Message = m
	}
	if into.Message == "" {
		into.Message = detailMessage(s.Raw)
	}
	return nil
}

// detailMessage returns the message that raw, an error object without a
// message, holds as a string in detail, as Open WebUI writes a pipe's
// failure inside its stream (open-webui/open-webui,
// backend/open_webui/functions.py, generate_function_chat_completion:
// {"error": {"detail": str(e)}}); "" for any other error.
func detailMessage(raw string) string {
	if d := gjson.Get(raw, "detail"); d.Type == gjson.String {
		return d.Str
	}
	return ""
}

// wrappedMessage returns the upstream's message that raw, an error
// object, holds as a string in value.error_message, where Vercel AI
// Gateway puts it when a provider refuses a request once the stream has
// begun: its error is its own parse failure, "Stream error occurred"
// (name AI_TypeValidationError, a ZodError as its cause), and the
// provider's error body a JSON string beside it (vercel/ai#18303,
// cline/cline#12800). The message of that body's error, or the string
// itself when it is no error object; "" for any other error.
func wrappedMessage(raw string) string {
	v := gjson.Get(raw, "value.error_message")
	if v.Type != gjson.String || v.Str == "" {
		return ""
	}
	if m := gjson.Get(v.Str, "error.message"); m.Type == gjson.String && m.Str != "" {
		return m.Str
	}
	if gjson.Valid(v.Str) {
		return ""
	}
	return v.Str
}

// malformed is the error of an event whose data, data, does not decode:
// the server's error when data is a line of text, not JSON (one-hub writes
// the error that ended its upstream's stream as an event's data, "data:
// unexpected EOF", and ends the body), or when data is an error object
// whose message was written unescaped (see unescapedError); a cut answer
// when data is JSON whose end is missing (see cutShort); else a
// malformed event.
func malformed(data []byte, err error) error {
	if msg, ok := sse.Text(data); ok {
		return serverError(&ServerError{Message: msg})
	}
	if msg, ok := unescapedError(data); ok {
		return serverError(&ServerError{Message: msg})
	}
	if cutShort(data) {
		return &Error{Truncated: true, Detail: eventCut, Err: err}
	}
	return &Error{Detail: "malformed event", Err: err}
}

// serverError is the error of an event that carries an error.
func serverError(s *ServerError) error { return &Error{Server: s, Detail: "error event"} }

// IsErrorEvent reports whether err, an error of Decode, is the server's
// own error sent as an event.
func IsErrorEvent(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Server != nil
}

// wholeError returns the error a whole response's JSON, raw, carries in
// the place of an answer: its "error" member, when it has one and no answer
// (empty). OpenRouter answers 200 once a model has started on the
// request and puts an error that happens after in the body
// (openrouter.ai/docs/api-reference/errors); openai-go then gives a
// completion without choices and no error.
func wholeError(raw string, empty bool) *ServerError {
	if !empty {
		return nil
	}
	return rawError(nil, gjson.Get(raw, "error").Raw, "")
}

// LineError returns the error of a stream's error line (see
// sse.ErrorLine): the server's, as an error event's. A field's value
// that is not JSON is the error's message; one that wraps an "error"
// object is that object: GPUStack's llama-box writes a failure mid-stream
// as an error: field holding {"detail": …, "error": {"message": …}}
// (gpustack/llama-box llama-box/httpserver.hpp, send_event_json), where
// llama.cpp's holds the error object itself. A bare line of text is the
// error's message.
func LineError(el *sse.ErrorLine) error {
	raw := string(el.Data)
	switch {
	case el.Text:
		return serverError(&ServerError{Message: strings.TrimSpace(raw), Text: true})
	case !el.Field:
		if s := statusError(el.Data); s != nil && !gjson.Get(raw, "error").Exists() {
			return serverError(s)
		}
		return serverError(rawError(el.Data, gjson.Get(raw, "error").Raw, ""))
	case !gjson.Valid(raw):
		return serverError(&ServerError{Message: raw})
	}
	if e := gjson.Get(raw, "error"); e.IsObject() {
		raw = e.Raw
	}
	return serverError(&ServerError{Raw: raw})
}

// NamedError returns the error of an event the server named "error" (see
// sse.Reader.ErrorEvent), whose data decoded to err: err itself when it is
// already the server's error (a chat server's "error" member, a Responses
// error event) or a bound's; else the data's message ("message", "detail"
// or "details"), and its code, or the data itself when it is no JSON.
func NamedError(data []byte, err error) error {
	var ce *Error
	if errors.As(err, &ce) && (ce.Server != nil || ce.TooLarge) {
		return err
	}
	raw := string(data)
	if !gjson.Valid(raw) {
		return serverError(&ServerError{Message: strings.TrimSpace(raw)})
	}
	e := &ServerError{Code: gjson.Get(raw, "code").String()}
	for _, key := range [...]string{"message", "detail", "details"} {
		if m := gjson.Get(raw, key); m.Exists() && m.Type != gjson.Null {
			e.Message = m.String()
			break
		}
	}
	if e.Message == "" {
		e.Message = raw
	}
	return serverError(e)
}

// codeError returns the error of an event without choices whose extra
// fields hold a non-zero "error_code", and its message in "text" or
// "message": FastChat's OpenAI API server sends a worker's failure so,
// mid-stream, its message in "text", and then [DONE] (lm-sys/FastChat
// fastchat/serve/openai_api_server.py); RTP-LLM's frontend sends any
// exception of a stream so, its message in "message" beside
// error_code_str, and ends the body (alibaba/rtp-llm
// rtp_llm/frontend/frontend_server.py, stream_response;
// rtp_llm/server/misc.py, format_exception). nil for any other event.
func codeError(extra map[string]respjson.Field, choices int) *ServerError {
	if choices > 0 {
		return nil
	}
	f, ok := extra["error_code"]
	if !ok {
		return nil
	}
	code := gjson.Parse(f.Raw())
	if code.Type != gjson.Number || code.Int() == 0 {
		return nil
	}
	msg, ok := extra["text"]
	if !ok {
		msg = extra["message"]
	}
	name := gjson.Parse(extra["error_code_str"].Raw()).Str // RTP-LLM's "<code>_<its name>"
	return &ServerError{Code: code.Raw, Message: stringOf(json.RawMessage(msg.Raw())), Type: name}
}

// statusError returns the error of an event that is a platform's status
// saying the request failed (see sse.StatusError): its code and its
// text; nil for any other event.
func statusError(data []byte) *ServerError {
	if !sse.StatusError(data) {
		return nil
	}
	msg, _ := sse.StatusMessage(data)
	return &ServerError{Code: gjson.GetBytes(data, "code").Raw, Message: msg}
}

// llamaCppError returns the error of an event without choices whose
// members are llama.cpp's error object, a number "code", a string
// "message" and a string "type" (format_error_response in llama-server's
// server.cpp), sent as data: llama-server writes it as an "error:" field
// (see sse.ErrorLine), which Jan's cortex.cpp relays as data, dropping a
// read's first 6 bytes and writing "data: " before the rest
// (janhq/cortex.cpp engine/extensions/local-engine/local_engine.cc,
// WriteCallback), then data: [DONE]. nil for any other event.
func llamaCppError(data []byte, extra map[string]respjson.Field, choices int) *ServerError {
	if choices > 0 {
		return nil
	}
	code, msg, typ := extra["code"], extra["message"], extra["type"]
	if gjson.Parse(code.Raw()).Type != gjson.Number || gjson.Parse(msg.Raw()).Type != gjson.String ||
		gjson.Parse(typ.Raw()).Type != gjson.String {
		return nil
	}
	return &ServerError{Raw: strings.TrimSpace(string(data))}
}

// groqError returns the error of a chunk whose x_groq extension holds
// one: Groq stops a stream early (over capacity, say) with the reason only
// in x_groq.error of its last chunk, which carries a finish reason and is
// followed by [DONE] as a finished answer's is (groq/groq-python
// types/chat/chat_completion_chunk.py: "An error string indicating why a
// stream was stopped early"); nil for any other chunk. Groq sends x_groq
// on a stream's first and last chunks only, and no other server sends it.
func groqError(extra map[string]respjson.Field) *ServerError {
	f, ok := extra["x_groq"]
	if !ok {
		return nil
	}
	e := gjson.Get(f.Raw(), "error")
	if !e.Exists() || e.Type == gjson.Null || (e.Type == gjson.String && e.Str == "") {
		return nil
	}
	return &ServerError{Raw: e.Raw}
}

// baseRespError returns the error in raw, an answer's base_resp, when its
// status_code is not 0: MiniMax answers a request it failed (over its rate
// limit, 1002; a balance spent, 1008; a bad key, 1004) with status 200, no
// choices, a usage of zeros and the failure only there, streamed or not
// (CherryHQ/cherry-studio#11287: "choices: null + zeroed usage" beside
// "base_resp{status_code,status_msg}"); its answers that succeed carry
// status_code 0. nil for any other.
func baseRespError(raw string) *ServerError {
	code := gjson.Get(raw, "status_code")
	if code.Type != gjson.Number || code.Int() == 0 {
		return nil
	}
	return &ServerError{Code: code.Raw, Message: gjson.Get(raw, "status_msg").String(), Type: BaseRespType}
}

// BaseRespType is the Type of the ServerError of an answer's base_resp
// (see baseRespError): its Code is then MiniMax's own status code, which
// only MiniMax's table of codes gives a meaning.
const BaseRespType = "base_resp"

// rawError returns the error an event of a chat or completions stream
// carries, raw: its "error" field, or the whole event when its object is
// "error" (as some servers send a failure mid-stream) or its "error" is
// true beside a message of its own (Kong's ai-proxy:
// {"error": true, "message": …}, normalize-sse-chunk.lua's
// ERROR__NOT_SET); nil when it has none.
func rawError(data []byte, errField, object string) *ServerError {
	if (object == `"error"` && (errField == "" || errField == "null")) || errField == "true" {
		errField = string(data)
	}
	if errField == "" || errField == "null" {
		return nil
	}
	e := &ServerError{Raw: errField}
	if !strings.HasPrefix(errField, `"`) {
		return e
	}
	if t := gjson.GetBytes(data, "error_type"); t.Type == gjson.String {
		e.Type = t.Str
	}
	if c := gjson.GetBytes(data, "code"); c.Type == gjson.Number {
		e.Code = c.Raw
	}
	return e
}

// errNull refuses a whole response whose body is JSON null, which
// openai-go decodes into no response and no error: KoboldCpp answers a
// request it failed on so, with status 200 (a completions prompt given as
// an array, max_tokens null: koboldcpp.py's generate returns None).
var errNull = &Error{Detail: "the response is null"}

// errChatChunk is the error of a Responses stream whose event is a chat
// chunk: the server answered in another API's shape.
var errChatChunk = &Error{Detail: "chat chunk in a Responses stream"}
