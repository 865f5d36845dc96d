package simulate

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// responsesFormat formats /v1/responses responses: the typed events of the
// Responses API (each "event: TYPE" with its JSON data, which repeats the
// type and carries a sequence_number counted from 0), and the Response
// object of a non-streaming request. A reply of text is one message output
// item with one output_text part; a reply of tool calls is one
// function_call item per call. Unlike chat, the stream ends with
// response.completed (or response.incomplete when max_output_tokens cut
// it) holding the whole Response with its usage, and no [DONE].
//
// It keeps the state the events need (the text so far, the open item), so
// one is made per response.
type responsesFormat struct {
	id, msgID string
	created   int64
	model     string
	seq       int
	started   bool            // the message item was added
	text      strings.Builder // the message's text so far
	calls     []callDelta     // the calls so far, arguments accumulated
	open      bool            // the last item is not done yet
	reason    string          // the finish reason, once finished
	items     [][]byte        // the output items done, as JSON
	lps       []tokenLogprob  // the message's log-probabilities so far, if asked
	settings  []byte          // the request's settings, from responseSettings
	// background: response.created and response.queued went out
	// (queued), so role sends response.in_progress alone.
	background bool
}

func newResponsesFormat(id uint64, created int64, model string, settings []byte) *responsesFormat {
	if settings == nil {
		settings = responseSettings(&responsesRequest{})
	}
	return &responsesFormat{id: responseID(id), msgID: "msg_" + strconv.FormatUint(id, 10), created: created, model: model, settings: settings}
}

// responseID is the id of the response to request id.
func responseID(id uint64) string { return "resp_" + strconv.FormatUint(id, 10) }

// responseSettings returns the fields of a Response object that report
// req's settings, as OpenAI echoes them, each with OpenAI's default when
// req did not set it: background, instructions, max_output_tokens,
// metadata, parallel_tool_calls, previous_response_id, reasoning, store,
// temperature, text, tool_choice, tools, top_logprobs, top_p, truncation
// and user. Objects the request set (metadata, reasoning, text,
// tool_choice, tools) come back as sent, on one line.
func responseSettings(req *responsesRequest) []byte {
	b := append([]byte(nil), `"background":`...)
	b = strconv.AppendBool(b, req.Background != nil && *req.Background)
	b = append(b, `,"instructions":`...)
	if req.Instructions != "" {
		b = appendString(b, req.Instructions)
	} else {
		b = append(b, `null`...)
	}
	b = append(b, `,"max_output_tokens":`...)
	if req.MaxOutputTokens != nil {
		b = strconv.AppendInt(b, int64(*req.MaxOutputTokens), 10)
	} else {
		b = append(b, `null`...)
	}
	b = append(b, `,"metadata":`...)
	b = appendRaw(b, req.Metadata, `{}`)
	b = append(b, `,"parallel_tool_calls":`...)
	b = strconv.AppendBool(b, req.ParallelToolCalls == nil || *req.ParallelToolCalls)
	b = append(b, `,"previous_response_id":`...)
	if req.PreviousResponseID != nil {
		b = appendString(b, *req.PreviousResponseID)
	} else {
		b = append(b, `null`...)
	}
	b = append(b, `,"reasoning":`...)
	b = appendRaw(b, req.Reasoning, `{"effort":null,"summary":null}`)
	b = append(b, `,"store":`...)
	b = strconv.AppendBool(b, req.Store != nil && *req.Store)
	b = append(b, `,"temperature":`...)
	b = appendSetting(b, req.Temperature)
	b = append(b, `,"text":`...)
	b = appendRaw(b, req.Text, `{"format":{"type":"text"}}`)
	b = append(b, `,"tool_choice":`...)
	b = appendRaw(b, req.ToolChoice, `"auto"`)
	b = append(b, `,"tools":`...)
	b = appendRaw(b, req.Tools.raw, `[]`)
	b = append(b, `,"top_logprobs":`...)
	if req.TopLogprobs != nil {
		b = strconv.AppendInt(b, int64(*req.TopLogprobs), 10)
	} else {
		b = append(b, '0')
	}
	b = append(b, `,"top_p":`...)
	b = appendSetting(b, req.TopP)
	b = append(b, `,"truncation":`...)
	if req.Truncation != nil {
		b = appendString(b, *req.Truncation)
	} else {
		b = append(b, `"disabled"`...)
	}
	b = append(b, `,"user":`...)
	if req.User != nil {
		return appendString(b, *req.User)
	}
	return append(b, `null`...)
}

// appendRaw appends raw, valid JSON a request sent, on one line, or def
// if it sent none (or null).
func appendRaw(b []byte, raw json.RawMessage, def string) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return append(b, def...)
	}
	var out bytes.Buffer
	if json.Compact(&out, raw) != nil {
		return append(b, def...)
	}
	return append(b, out.Bytes()...)
}

// appendSetting appends a sampling setting's value, 1.0 if not set.
func appendSetting(b []byte, v *float64) []byte {
	if v == nil {
		return append(b, `1.0`...)
	}
	return strconv.AppendFloat(b, *v, 'f', -1, 64)
}

// event appends the opening of an event of type typ, through its
// sequence_number; the caller appends the other fields and closes it with
// endEvent.
func (f *responsesFormat) event(b []byte, typ string) []byte {
	b = append(b, "event: "...)
	b = append(b, typ...)
	b = append(b, "\ndata: {\"type\":"...)
	b = appendString(b, typ)
	b = append(b, `,"sequence_number":`...)
	b = strconv.AppendInt(b, int64(f.seq), 10)
	f.seq++
	return b
}

func endEvent(b []byte) []byte { return append(b, "}"+eventEnd...) }

// response appends the Response object in the given status with the
// output items done so far, and usage unless u is nil.
func (f *responsesFormat) response(b []byte, status string, u *usage) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, f.id)
	b = append(b, `,"object":"response","created_at":`...)
	b = strconv.AppendInt(b, f.created, 10)
	b = append(b, `,"status":`...)
	b = appendString(b, status)
	b = append(b, `,"error":null,"incomplete_details":`...)
	if status == "incomplete" {
		b = append(b, `{"reason":"max_output_tokens"}`...)
	} else {
		b = append(b, `null`...)
	}
	b = append(b, `,"model":`...)
	b = appendString(b, f.model)
	b = append(b, `,"output":[`...)
	for i, it := range f.items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	b = append(b, "],"...)
	b = append(b, f.settings...)
	b = append(b, `,"usage":`...)
	if u == nil {
		b = append(b, `null`...)
	} else {
		b = append(b, `{"input_tokens":`...)
		b = strconv.AppendInt(b, int64(u.prompt), 10)
		b = append(b, `,"input_tokens_details":{"cached_tokens":`...)
		b = strconv.AppendInt(b, int64(u.cached), 10)
		b = append(b, `},"output_tokens":`...)
		b = strconv.AppendInt(b, int64(u.completion), 10)
		b = append(b, `,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":`...)
		b = strconv.AppendInt(b, int64(u.prompt+u.completion), 10)
		b = append(b, '}')
	}
	return append(b, '}')
}

// messageItem appends the message output item holding text, with the
// log-probabilities of its tokens (lps, none if nil).
func (f *responsesFormat) messageItem(b []byte, status string, content bool, text string, lps []tokenLogprob) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, f.msgID)
	b = append(b, `,"type":"message","status":`...)
	b = appendString(b, status)
	b = append(b, `,"role":"assistant","content":[`...)
	if content {
		b = textPart(b, text, lps)
	}
	return append(b, "]}"...)
}

// textPart appends an output_text content part holding text, with the
// log-probabilities of its tokens (lps, bytes included; none if nil).
func textPart(b []byte, text string, lps []tokenLogprob) []byte {
	b = append(b, `{"type":"output_text","text":`...)
	b = appendString(b, text)
	b = append(b, `,"annotations":[],"logprobs":`...)
	return append(appendEntries(b, lps, withBytes), '}')
}

// callItem appends the function_call output item of c.
func (f *responsesFormat) callItem(b []byte, status string, c callDelta) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, "fc_"+strings.TrimPrefix(c.id, "call_"))
	b = append(b, `,"type":"function_call","status":`...)
	b = appendString(b, status)
	b = append(b, `,"arguments":`...)
	b = appendString(b, c.args)
	b = append(b, `,"call_id":`...)
	b = appendString(b, c.id)
	b = append(b, `,"name":`...)
	b = appendString(b, c.name)
	return append(b, '}')
}

// itemRef appends the item_id and output_index of the item at index i.
func itemRef(b []byte, id string, i int) []byte {
	b = append(b, `,"item_id":`...)
	b = appendString(b, id)
	b = append(b, `,"output_index":`...)
	return strconv.AppendInt(b, int64(i), 10)
}

// queued appends the events that open a background response while it
// waits in the engine's queue: response.created and response.queued, in
// status "queued".
func (f *responsesFormat) queued(b []byte) []byte {
	for _, typ := range []string{"response.created", "response.queued"} {
		b = f.event(b, typ)
		b = append(b, `,"response":`...)
		b = f.response(b, "queued", nil)
		b = endEvent(b)
	}
	return b
}

func (f *responsesFormat) role(b []byte) []byte {
	if f.background {
		b = f.event(b, "response.in_progress")
		b = append(b, `,"response":`...)
		return endEvent(f.response(b, "in_progress", nil))
	}
	for _, typ := range []string{"response.created", "response.in_progress"} {
		b = f.event(b, typ)
		b = append(b, `,"response":`...)
		b = f.response(b, "in_progress", nil)
		b = endEvent(b)
	}
	return b
}

func (f *responsesFormat) token(b []byte, text string, lps []tokenLogprob) []byte {
	if !f.started {
		f.started, f.open = true, true
		b = f.event(b, "response.output_item.added")
		b = append(b, `,"output_index":0,"item":`...)
		b = endEvent(f.messageItem(b, "in_progress", false, "", nil))
		b = f.event(b, "response.content_part.added")
		b = append(itemRef(b, f.msgID, 0), `,"content_index":0,"part":`...)
		b = endEvent(textPart(b, "", nil))
	}
	f.text.WriteString(text)
	f.lps = append(f.lps, lps...)
	b = f.event(b, "response.output_text.delta")
	b = append(itemRef(b, f.msgID, 0), `,"content_index":0,"delta":`...)
	b = appendString(b, text)
	b = append(b, `,"logprobs":`...)
	return endEvent(appendEntries(b, lps, withoutBytes))
}

func (f *responsesFormat) toolCalls(b []byte, calls []callDelta) []byte {
	for _, c := range calls {
		if c.start {
			b = f.closeItem(b)
			f.calls = append(f.calls, callDelta{index: c.index, id: c.id, name: c.name})
			f.open = true
			b = f.event(b, "response.output_item.added")
			b = append(b, `,"output_index":`...)
			b = strconv.AppendInt(b, int64(len(f.items)), 10)
			b = append(b, `,"item":`...)
			b = endEvent(f.callItem(b, "in_progress", f.calls[len(f.calls)-1]))
		}
		if c.args == "" {
			continue
		}
		last := &f.calls[len(f.calls)-1]
		last.args += c.args
		b = f.event(b, "response.function_call_arguments.delta")
		b = append(itemRef(b, "fc_"+strings.TrimPrefix(last.id, "call_"), len(f.items)), `,"delta":`...)
		b = endEvent(appendString(b, c.args))
	}
	return b
}

// closeItem appends the events that finish the open output item, if any.
func (f *responsesFormat) closeItem(b []byte) []byte {
	if !f.open {
		return b
	}
	f.open = false
	i := len(f.items)
	if len(f.calls) == 0 {
		text := f.text.String()
		b = f.event(b, "response.output_text.done")
		b = append(itemRef(b, f.msgID, i), `,"content_index":0,"text":`...)
		b = append(appendString(b, text), `,"logprobs":`...)
		b = endEvent(appendEntries(b, f.lps, withoutBytes))
		b = f.event(b, "response.content_part.done")
		b = append(itemRef(b, f.msgID, i), `,"content_index":0,"part":`...)
		b = endEvent(textPart(b, text, f.lps))
		f.items = append(f.items, f.messageItem(nil, "completed", true, text, f.lps))
	} else {
		c := f.calls[len(f.calls)-1]
		b = f.event(b, "response.function_call_arguments.done")
		b = append(itemRef(b, "fc_"+strings.TrimPrefix(c.id, "call_"), i), `,"name":`...)
		b = appendString(b, c.name)
		b = append(b, `,"arguments":`...)
		b = endEvent(appendString(b, c.args))
		f.items = append(f.items, f.callItem(nil, "completed", c))
	}
	b = f.event(b, "response.output_item.done")
	b = append(b, `,"output_index":`...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, `,"item":`...)
	return endEvent(append(b, f.items[i]...))
}

func (f *responsesFormat) finish(b []byte, reason string) []byte {
	f.reason = reason
	return f.closeItem(b)
}

// status is the Response status of a finished reply.
func (f *responsesFormat) status() string {
	if f.reason == "length" {
		return "incomplete"
	}
	return "completed"
}

func (f *responsesFormat) usage(b []byte, u usage) []byte {
	status := f.status()
	b = f.event(b, "response."+status)
	b = append(b, `,"response":`...)
	b = f.response(b, status, &u)
	return endEvent(b)
}

// errorEvent appends an "error" event: code, message, param.
func (f *responsesFormat) errorEvent(b []byte, e *apiError) []byte {
	b = f.event(b, "error")
	b = append(b, `,"code":`...)
	b = appendString(b, e.code)
	b = append(b, `,"message":`...)
	b = appendString(b, e.message)
	return endEvent(append(b, `,"param":null`...))
}

// done appends nothing: a Responses stream ends with response.completed.
func (f *responsesFormat) done(b []byte) []byte { return b }

func (f *responsesFormat) whole(b []byte, text, reason string, u usage, lps []tokenLogprob) []byte {
	f.reason = reason
	f.items = [][]byte{f.messageItem(nil, "completed", true, text, lps)}
	return append(f.response(b, f.status(), &u), '\n')
}

func (f *responsesFormat) wholeCalls(b []byte, calls []callDelta, reason string, u usage) []byte {
	f.reason = reason
	f.items = nil
	for _, c := range calls {
		f.items = append(f.items, f.callItem(nil, "completed", c))
	}
	return append(f.response(b, f.status(), &u), '\n')
}
