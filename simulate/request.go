package simulate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"
)

// commonRequest is the part of a request both endpoints read.
type commonRequest struct {
	Model         string          `json:"model"`
	Stream        bool            `json:"stream"`
	StreamOptions *streamOptions  `json:"stream_options"`
	MaxTokens     *int            `json:"max_tokens"`
	Stop          json.RawMessage `json:"stop"`
	N             *int            `json:"n"`
	Seed          *int64          `json:"seed"`
	sampling
}

// sampling holds the sampling parameters a request may set; the simulator
// checks their ranges, as OpenAI does, and otherwise ignores them.
type sampling struct {
	Temperature      *float64 `json:"temperature"`
	TopP             *float64 `json:"top_p"`
	PresencePenalty  *float64 `json:"presence_penalty"`
	FrequencyPenalty *float64 `json:"frequency_penalty"`
}

// check answers 400, naming the parameter, for a value out of the range
// OpenAI documents: temperature 0..2, top_p 0..1, penalties -2..2.
func (p *sampling) check() *apiError {
	for _, f := range []struct {
		name     string
		v        *float64
		min, max float64
	}{{"temperature", p.Temperature, 0, 2}, {"top_p", p.TopP, 0, 1},
		{"presence_penalty", p.PresencePenalty, -2, 2}, {"frequency_penalty", p.FrequencyPenalty, -2, 2}} {
		if f.v != nil && !(*f.v >= f.min && *f.v <= f.max) {
			return badRequest(f.name, fmt.Sprintf("%g is not a valid %s: want a number from %g to %g", *f.v, f.name, f.min, f.max))
		}
	}
	return nil
}

// chatRequest is the part of a chat completions request the simulator
// reads; other fields are accepted and ignored.
type chatRequest struct {
	commonRequest
	Messages            []chatMessage `json:"messages"`
	MaxCompletionTokens *int          `json:"max_completion_tokens"`
	Logprobs            *bool         `json:"logprobs"`
	TopLogprobs         *int          `json:"top_logprobs"`
	Tools               []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// completionRequest is the part of a legacy completions request the
// simulator reads.
type completionRequest struct {
	commonRequest
	Prompt   promptField `json:"prompt"`
	Suffix   *string     `json:"suffix"`
	Echo     bool        `json:"echo"`
	Logprobs *int        `json:"logprobs"`
}

// promptField is a completions prompt read by parsePrompt as it is decoded,
// so the raw JSON is never copied; a bad prompt is kept as err, for the
// handler to report in its turn.
type promptField struct {
	text   string
	tokens int
	err    *apiError
	set    bool
}

func (p *promptField) UnmarshalJSON(b []byte) error {
	p.text, p.tokens, p.err = parsePrompt(b)
	p.set = true
	return nil
}

// parse returns the prompt's text or token count, as parsePrompt.
func (p *promptField) parse() (string, int, *apiError) {
	if !p.set {
		return "", 0, badPrompt()
	}
	return p.text, p.tokens, p.err
}

// responsesRequest is the part of a Responses API request the simulator
// reads.
type responsesRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	sampling
	MaxOutputTokens *int            `json:"max_output_tokens"`
	Instructions    string          `json:"instructions"`
	Input           json.RawMessage `json:"input"`
	TopLogprobs     *int            `json:"top_logprobs"`
	Include         []string        `json:"include"`
	Tools           responseTools   `json:"tools"`

	// Settings the Response object echoes and the simulator otherwise
	// ignores (see responseSettings).
	Background         *bool           `json:"background"`
	PreviousResponseID *string         `json:"previous_response_id"`
	Metadata           json.RawMessage `json:"metadata"`
	ToolChoice         json.RawMessage `json:"tool_choice"`
	Text               json.RawMessage `json:"text"`
	Reasoning          json.RawMessage `json:"reasoning"`
	ParallelToolCalls  *bool           `json:"parallel_tool_calls"`
	Store              *bool           `json:"store"`
	Truncation         *string         `json:"truncation"`
	User               *string         `json:"user"`
}

// responseTools is a Responses request's tools: their names, and the
// JSON the Response object echoes.
type responseTools struct {
	names []string
	raw   json.RawMessage
}

func (t *responseTools) UnmarshalJSON(b []byte) error {
	var tools []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(b, &tools); err != nil {
		return err
	}
	t.names = t.names[:0]
	for _, tool := range tools {
		t.names = append(t.names, tool.Name)
	}
	t.raw = b
	return nil
}

// parseInput reads a Responses "input": a string (one user message) or an
// array of items: messages (content a string or an array of parts),
// function calls (their arguments count as text) and function call
// outputs (their output).
func parseInput(raw json.RawMessage) ([]chatMessage, *apiError) {
	raw = bytes.TrimSpace(raw)
	bad := func(msg string) ([]chatMessage, *apiError) { return nil, badRequest("input", msg) }
	if len(raw) == 0 || string(raw) == "null" {
		return bad("you must provide an input")
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return bad("input must be a string or an array of items")
		}
		return []chatMessage{{Role: "user", text: s}}, nil
	}
	var items []struct {
		Type      string          `json:"type"`
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		Output    json.RawMessage `json:"output"`
		Arguments string          `json:"arguments"`
	}
	if json.Unmarshal(raw, &items) != nil {
		return bad("input must be a string or an array of items")
	}
	if len(items) == 0 {
		return bad("input must hold at least one item")
	}
	msgs := make([]chatMessage, len(items))
	for i, it := range items {
		m := chatMessage{Role: it.Role}
		if m.Role == "" {
			m.Role = it.Type
		}
		var err error
		switch {
		case len(it.Content) > 0:
			m.text, err = contentText(it.Content)
		case len(it.Output) > 0:
			m.text, err = contentText(it.Output)
		default:
			m.text = it.Arguments
		}
		if err != nil {
			return bad(fmt.Sprintf("input[%d]: %v", i, err))
		}
		msgs[i] = m
	}
	return msgs, nil
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatMessage is a message whose content may be a string or an array of
// parts; text holds the concatenated text.
type chatMessage struct {
	Role string
	text string
	// content reports that the message had content (neither missing nor
	// null).
	content bool
}

func (m *chatMessage) UnmarshalJSON(b []byte) error {
	var raw struct {
		Role    string          `json:"role"`
		Content *messageContent `json:"content"`
	}
	err := json.Unmarshal(b, &raw)
	m.Role = raw.Role
	if raw.Content != nil {
		m.text, m.content = string(*raw.Content), true
	}
	return err
}

// chatRoles are the roles OpenAI accepts in a chat message, in the order
// its error message lists them.
var chatRoles = []string{"system", "assistant", "user", "function", "tool", "developer"}

// checkMessages answers 400, as OpenAI does, for a chat message without a
// role, with a role it does not know, or without content where its role
// needs some (every role but assistant, whose reply may be tool calls
// alone).
func checkMessages(msgs []chatMessage) *apiError {
	for i, m := range msgs {
		param := fmt.Sprintf("messages[%d].role", i)
		switch {
		case m.Role == "":
			return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: param, code: "missing_required_parameter",
				message: fmt.Sprintf("Missing required parameter: '%s'.", param)}
		case !slices.Contains(chatRoles, m.Role):
			quoted := make([]string, len(chatRoles))
			for j, r := range chatRoles {
				quoted[j] = "'" + r + "'"
			}
			return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: param, code: "invalid_value",
				message: fmt.Sprintf("Invalid value: '%s'. Supported values are: %s, and %s.", m.Role, strings.Join(quoted[:len(quoted)-1], ", "), quoted[len(quoted)-1])}
		case !m.content && m.Role != "assistant":
			param = fmt.Sprintf("messages[%d].content", i)
			return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: param, code: "missing_required_parameter",
				message: fmt.Sprintf("Missing required parameter: '%s'.", param)}
		}
	}
	return nil
}

// messageContent is a message's content read straight into its text (see
// contentText), without keeping the raw JSON.
type messageContent string

func (c *messageContent) UnmarshalJSON(b []byte) error {
	text, err := contentText(b)
	*c = messageContent(text)
	return err
}

// contentText reads a message content: null, a string, or an array of
// parts whose "text" fields are concatenated.
func contentText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("content is neither a string nor an array of parts")
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// decodeBody reads r's JSON body into v, within the server's size limit
// and body timeout.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, v any) *apiError {
	rc := http.NewResponseController(w)
	timed := rc.SetReadDeadline(time.Now().Add(s.cfg.bodyTimeout)) == nil
	body, err := readBody(http.MaxBytesReader(w, r.Body, s.cfg.maxBodyBytes), r.ContentLength)
	if err != nil {
		// The rest of the body is not read: the connection cannot carry
		// another request (and net/http would otherwise wait to discard
		// the rest).
		w.Header().Set("Connection", "close")
		if mbe, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return &apiError{status: http.StatusRequestEntityTooLarge, message: fmt.Sprintf("request body over %d bytes", mbe.Limit)}
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return &apiError{status: http.StatusRequestTimeout, message: fmt.Sprintf("request body not received within %v", s.cfg.bodyTimeout)}
		}
		return badRequest("", "reading request body: "+err.Error())
	}
	if timed {
		rc.SetReadDeadline(time.Time{})
	}
	if err := json.Unmarshal(body, v); err != nil {
		return decodeError(err)
	}
	return nil
}

// decodeError is the 400 of a body that did not decode. A value of the
// wrong type is named as OpenAI names it ("Invalid type for 'max_tokens':
// expected an integer, but got a string instead.", with the parameter and
// code invalid_type), never by the simulator's Go types.
func decodeError(err error) *apiError {
	te, ok := errors.AsType[*json.UnmarshalTypeError](err)
	if !ok || te.Field == "" {
		return badRequest("", "invalid JSON body: "+err.Error())
	}
	// The path holds the Go names of the embedded structs the
	// parameters are promoted from; the API knows none of them.
	var path []string
	for _, name := range strings.Split(te.Field, ".") {
		if name != "commonRequest" && name != "sampling" {
			path = append(path, name)
		}
	}
	param := strings.Join(path, ".")
	got, _, _ := strings.Cut(te.Value, " ") // "number 1.5": a number
	e := badRequest(param, fmt.Sprintf("Invalid type for '%s': expected %s, but got %s instead.", param, jsonKind(te.Type), article(got)))
	e.code = "invalid_type"
	return e
}

// jsonKind names the JSON values a field of type t takes.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// article puts "a" or "an" before a JSON value's kind, as encoding/json
// names it ("string", "number", "bool", "array", "object").
func article(kind string) string {
	switch kind {
	case "bool":
		return "a boolean"
	case "array", "object":
		return "an " + kind
	}
	return "a " + kind
}

// bodyBlock is the size of the blocks readBody reads into.
const bodyBlock = 64 << 10

// readBody reads r to its end. It holds what arrived in blocks, then joins
// them once: a body costs its size twice at most, never more, and a client
// that announces a large Content-Length (size) but sends little costs what
// it sent. A body that fits the first block is not copied.
func readBody(r io.Reader, size int64) ([]byte, error) {
	first := bodyBlock
	if size >= 0 && size < bodyBlock {
		first = int(size) + 1 // room to see the end
	}
	var blocks [][]byte
	total := 0
	for b := make([]byte, 0, first); ; {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		total += n
		if err == io.EOF {
			blocks = append(blocks, b)
			break
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			blocks = append(blocks, b)
			b = make([]byte, 0, bodyBlock)
		}
	}
	if len(blocks) == 1 {
		return blocks[0], nil
	}
	body := make([]byte, 0, total)
	for _, b := range blocks {
		body = append(body, b...)
	}
	return body, nil
}

// parseStop reads "stop": null, a string or an array of strings.
func parseStop(raw json.RawMessage) ([]string, *apiError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, badRequest("stop", "stop must be a string or an array of strings")
	}
	if len(many) > MaxStop {
		return nil, badRequest("stop", fmt.Sprintf("stop holds %d sequences, at most %d are allowed", len(many), MaxStop))
	}
	return many, nil
}

// parsePrompt reads a completions "prompt": a string, an array of one
// string, or an array of token ids (counted as that many tokens). raw is
// valid JSON (the request decoded); each form is recognised by its first
// bytes and read once, and token ids are counted without being decoded,
// so a body full of ids costs no more memory than the body itself.
func parsePrompt(raw json.RawMessage) (text string, tokens int, e *apiError) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return "", 0, badPrompt()
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", 0, badPrompt()
		}
		return s, 0, nil
	case raw[0] != '[':
		return "", 0, badPrompt()
	}
	first := bytes.TrimLeft(raw[1:], " \t\r\n")
	if len(first) > 0 && first[0] == '"' {
		var ss []string
		if json.Unmarshal(raw, &ss) != nil {
			return "", 0, badPrompt()
		}
		if len(ss) != 1 {
			return "", 0, badRequest("prompt", "only one prompt per request is supported")
		}
		return ss[0], 0, nil
	}
	if n, ok := countTokenIDs(raw); ok && n > 0 {
		return "", n, nil
	}
	return "", 0, badPrompt()
}

func badPrompt() *apiError {
	return badRequest("prompt", "prompt must be a string, an array of one string, or an array of token ids")
}

// countTokenIDs counts the elements of raw, a valid JSON array, if every
// one is an integer; it allocates nothing.
func countTokenIDs(raw []byte) (int, bool) {
	n, inNumber := 0, false
	for _, c := range raw[1 : len(raw)-1] {
		switch {
		case c >= '0' && c <= '9' || c == '-':
			if !inNumber {
				n++
				inNumber = true
			}
		case c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n':
			inNumber = false
		default:
			return 0, false // a fraction, an exponent, a string, an object...
		}
	}
	return n, true
}

// checkCommon validates what chat and completions requests share and
// returns the requested output length.
func (s *Server) checkCommon(modelName string, maxTokens *int, maxParam string, n *int) (*model, int, *apiError) {
	if modelName == "" {
		return nil, 0, badRequest("model", "you must provide a model parameter")
	}
	m, ok := s.models[modelName]
	if !ok {
		return nil, 0, modelNotFound(modelName)
	}
	if n != nil && *n != 1 {
		return nil, 0, badRequest("n", "n other than 1 is not supported by the simulator")
	}
	want := s.cfg.maxTokens
	if maxTokens != nil {
		want = *maxTokens
		if want < 1 || want > s.cfg.maxTokensLimit {
			return nil, 0, badRequest(maxParam, fmt.Sprintf("%s = %d out of range 1..%d", maxParam, want, s.cfg.maxTokensLimit))
		}
	}
	return m, want, nil
}
