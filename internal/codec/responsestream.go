package codec

import (
	"encoding/json"
	"errors"
	"hash/maphash"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

// Response done events that ResponseStream reads.
const (
	respTextDone  = "response.output_text.done"
	respArgsDone  = "response.function_call_arguments.done"
	respItemAdded = "response.output_item.added"
	respItemDone  = "response.output_item.done"
	// The done events of a reasoning item's text and of its summary,
	// which hold the whole of it.
	respReasoningDone = "response.reasoning_text.done"
	respSummaryDone   = "response.reasoning_summary_text.done"
)

// maxStreamedItems bounds the output items a ResponseStream keeps: past
// it, an item's done event is taken as the server's word that it was
// streamed.
const maxStreamedItems = 128

// ResponseStream decodes the events of one Responses stream in order. It
// keeps how much text each output item streamed (its length and a hash,
// not a copy) and whether each function call streamed its arguments, so
// that what a server sends only in a done event reaches the caller:
// llama.cpp's /v1/responses streams the parse of a partial answer as
// deltas, but the end of its final parse (text held back while it might
// open a tool call, a call recognised only in the whole output) only in
// output_text.done and output_item.done; a gateway relaying Codex models
// (LiteLLM) sends a call's arguments only in function_call_arguments.done.
//   - An output_text.done whose text extends what its item streamed
//     carries the rest as the chat view's content, an output of its own.
//     A text that does not extend it is the server's to reconcile: the
//     caller keeps what it was streamed.
//     A delta that then repeats that rest is not output again: TensorRT-LLM's
//     trtllm-serve, before its streaming rework of 2026, sent the done
//     events of the whole text before the last step's delta, which then
//     came as the one delta of a new item (responses_utils.py,
//     _generate_streaming_event).
//   - A function_call_arguments.done, or an output_item.done of a tool
//     call (see callItem) that streamed no delta, is a tool call and an
//     output: a call the computer, shell or apply-patch tool makes
//     comes whole in its items only.
type ResponseStream struct {
	response
	items map[partKey]*streamedItem
	all   streamedItem // the text of every item's deltas, in order
	ahead string       // text a done event gave before any delta did
	seed  maphash.Seed
	life  itemLife
	held  error // a response.failed that gave no reason (see HeldError)
	// refused: a refusal delta reached the caller (see finalRefusal).
	refused bool
	// reasoned: a reasoning delta reached the caller. Until one has, a
	// reasoning done event that holds text is output: LM Studio sends a
	// model's reasoning only so, whole, in one response.reasoning_text.done
	// (earendil-works/pi#4191, #4193), which is then the answer's first
	// token. One flag for the stream, not one per item, keeps the check
	// off the path of every delta.
	reasoned bool
	// thinking is the id of the open reasoning item, whose text events
	// are its reasoning (see reasoningAsText); "" when none is open.
	thinking string
	// output: an event before the final one was output (see finalOutput).
	output bool
	pairs  surrogateJoin // a character split between two events (see surrogateJoin)
}

// itemLife follows the output items of a Responses stream from their
// output_item.added to their output_item.done (see ItemsDone). The zero
// value has seen no item.
type itemLife struct {
	open     int  // items added and not yet done
	answered bool // an item other than reasoning was done, completed
	broken   bool // an item done that was not added, or not completed, or a call's arguments cut
}

// partKey names what a ResponseStream keeps apart: a content part of an
// output item (its id and content index), or a function call (its id or
// its call id, part -1).
type partKey struct {
	id   string
	part int64
}

// streamedItem is what one output item's part streamed: the length and
// hash of its text, and whether a function call's arguments reached the
// caller.
type streamedItem struct {
	n      int
	text   maphash.Hash
	deltas bool // some of the text came in deltas
	args   bool
}

// Decode decodes the next event of the stream. A response.failed that
// gives no reason, in its response or beside it, is held back (see
// HeldError): Azure OpenAI sends the reason in an error event after it
// (a content filter's content_policy_violation: maximhq/bifrost#6419,
// #6652). That error event is the stream's error; any other event after
// a held failure ends the stream with it.
func (s *ResponseStream) Decode(data []byte) (Event, error) {
	data = s.pairs.join(data)
	if s.held != nil {
		if out, err := s.response.Decode(data); err != nil && !bareError(err) {
			return out, err
		}
		return Event{}, s.held
	}
	out, err := s.response.Decode(data)
	if err != nil {
		return s.failed(data, out, err)
	}
	ev, _ := out.Orig.(*responses.ResponseStreamEventUnion)
	s.refusal(&out, ev)
	if out.Final {
		s.finalOutput(&out, ev)
		out.Items = holdsReasoning(&ev.Response)
	}
	if s.thinking != "" && ev.ItemID == s.thinking {
		s.reasoningAsText(&out, ev)
	}
	switch ev.Type {
	case RespTextDelta:
		if rest, ok := strings.CutPrefix(s.ahead, ev.Delta); ok && ev.Delta != "" {
			s.ahead = rest // given already, by a done event
			out.Chunk.Choices[0].Delta.Content, out.Outputs = "", 0
			break
		}
		s.ahead = ""
		if it := s.item(partKey{ev.ItemID, ev.ContentIndex}); it != nil {
			it.add(ev.Delta)
			it.deltas = true
		}
		s.all.add(ev.Delta)
		s.all.deltas = true
	case respReasoningDelta, respSummaryDelta, respOldReasoning, respOldSummary:
		s.reasoned = s.reasoned || ev.Delta != ""
	case respReasoningDone, respSummaryDone:
		if !s.reasoned && ev.Text != "" {
			out.Outputs = 1
		}
	case RespArgsDelta, respCustomDelta, respMCPDelta, respCodeDelta, respShellDelta, respPartialImage,
		respArgsDone, respCustomDone, respMCPDone, respCodeDone, respShellDone:
		s.call(&out, ev)
	case respRefusalDone:
		// A refusal whole in its done event, no delta before it: output,
		// as a text or a reasoning whole in its done event is.
		if !s.refused && ev.Refusal != "" {
			out.Chunk.Choices[0].Delta.Refusal = ev.Refusal
			out.Refusal, out.Outputs, s.refused = true, 1, true
		}
	case respTextDone:
		if it := s.streamed(partKey{ev.ItemID, ev.ContentIndex}, ev.Text); it != nil && len(ev.Text) > it.n && !(it.n == 0 && noResponse(ev.Text)) {
			rest := ev.Text[it.n:]
			it.add(rest)
			if it != &s.all {
				s.all.add(rest)
			}
			out.Chunk.Choices[0].Delta.Content = rest
			out.Outputs = 1
			s.ahead = rest
		}
	case respItemAdded:
		s.life.open++
		s.noteReasoningItem(ev)
	case respItemDone:
		s.life.done(ev.Item.Type, ev.Item.Status)
		s.noteReasoningItem(ev)
		out.Items = ev.Item.Type == "reasoning"
		if ev.Item.Type == "function_call" {
			ev.Item.Arguments.OfString = s.callArgs(ev.Item.ID, ev.Item.Arguments.OfString)
			s.life.args(ev.Item.Arguments.OfString)
		}
		keys := []partKey{callKey(ev.Item.ID), callKey(ev.Item.CallID)}
		if ev.Item.Type == "shell_call" {
			keys = append(keys, slotKey(ev.OutputIndex))
		}
		if callOutput(ev.Item.Type, ev.Item.Execution) && s.markArgs(keys...) {
			out.ToolCall, out.Outputs = true, 1
		}
	}
	s.output = s.output || out.Outputs > 0
	return out, nil
}

// call notes what ev, a delta or a done event of a tool call, gives the
// caller in out. A done event of a call none of whose deltas streamed
// (function_call_arguments.done, custom_tool_call_input.done,
// mcp_call_arguments.done, code_interpreter_call_code.done,
// shell_call_command.done: openai-go v3 responses/response.go,
// ResponseFunctionCallArgumentsDoneEvent and the others) holds the whole
// of what the model wrote into it: a tool call and an output, the call's
// first token, once.
func (s *ResponseStream) call(out *Event, ev *responses.ResponseStreamEventUnion) {
	key := callKey(ev.ItemID)
	if ev.Type == respShellDelta || ev.Type == respShellDone {
		key = slotKey(ev.OutputIndex)
	}
	switch ev.Type {
	case respArgsDone:
		ev.Arguments = s.callArgs(ev.ItemID, ev.Arguments)
		fallthrough
	case respCustomDone, respMCPDone, respCodeDone, respShellDone:
		if s.markArgs(key) {
			out.ToolCall, out.Outputs = true, 1
		}
	default:
		s.markArgs(key)
		if it := s.item(key); ev.Type == RespArgsDelta && it != nil {
			it.add(ev.Delta)
		}
	}
}

// failed returns what Decode gives for err, the error data decoded to
// (out): a response.failed that gives no reason is held back for the
// event after it, which may give it (see HeldError), and passed on as an
// event without output meanwhile.
func (s *ResponseStream) failed(data []byte, out Event, err error) (Event, error) {
	if !bareError(err) || gjson.GetBytes(data, "type").Str != respFailed {
		return out, err
	}
	ev := new(responses.ResponseStreamEventUnion)
	if json.Unmarshal(data, ev) != nil {
		return out, err
	}
	s.held = err
	chunk := &openai.ChatCompletionChunk{Model: ev.Response.Model, Choices: []openai.ChatCompletionChunkChoice{{}}}
	return Event{Chunk: chunk, Orig: ev}, nil
}

// refusal notes a refusal delta in out, the event ev decoded to, and
// gives the final event the refusal its response holds when no delta
// streamed one (see finalRefusal).
func (s *ResponseStream) refusal(out *Event, ev *responses.ResponseStreamEventUnion) {
	if out.Refusal {
		s.refused = true
	} else if out.Final && !s.refused {
		if r := finalRefusal(&ev.Response); r != "" {
			out.Chunk.Choices[0].Delta.Refusal = r
			out.Refusal, out.Outputs = true, 1
		}
	}
}

// finalRefusal returns the refusal the message items of res, a final
// response, hold. A refusal that no refusal delta streamed is output the
// final event carries: Llama Stack (OGX) answers an input its guardrail
// flags with response.created, response.in_progress and then only a
// response.completed whose output is a message of one refusal part
// (ogx-ai/ogx src/ogx/providers/inline/responses/builtin/responses/streaming.py,
// StreamingResponseOrchestrator._create_refusal_response). Without it the
// answer would read as empty, and a Router would send the flagged input
// to its next route.
func finalRefusal(res *responses.Response) string { return messageItemParts(res, "refusal") }

// done records the output_item.done of an item of type typ whose status is
// status: "completed", or none for an item that carries none (see
// statusless).
func (l *itemLife) done(typ, status string) {
	if l.open == 0 || (status != "completed" && (status != "" || !statusless(typ))) {
		l.broken = true
		return
	}
	l.open--
	if !prelude(typ) {
		l.answered = true
	}
}

// args records the arguments of a function call done "completed": a call
// whose arguments stop inside a JSON value (see cutJSON) was closed before
// its model finished writing it, whatever its status says. vLLM's /v1/responses
// closes an open call when one engine step holds the end of its arguments
// and the text after it, the text handled first (vllm-project/vllm#55284,
// #55371: split_delta, SimpleStreamingEventProcessor.close_current,
// emit_simple_tool_call_done); the call's tail then fails the server and
// the body ends after a message done "completed": no response.completed.
// Such a stream is cut (see ItemsDone). Arguments "" say nothing either
// way: some servers give a call without parameters none. Arguments a
// model wrote whole but not as JSON (single quotes, QwenLM/qwen-code#288;
// an extra closing brace, yigit353/langchain-qwq#30) are its answer, as
// they are when response.completed ends the stream.
func (l *itemLife) args(a string) {
	if cutJSON(a) {
		l.broken = true
	}
}

// statusless reports whether an output item of type t may be done without
// a status: openai-go v3's item types give a remote MCP tool's list
// (mcp_list_tools), its approval request and response, a custom tool's
// call, a compaction, a program and an additional tools item no status
// field at all, and OpenAI's reasoning items carry none in the stream
// (the field is optional). Every other item's done event says
// "completed" when it is whole.
func statusless(t string) bool {
	switch t {
	case "reasoning", "mcp_list_tools", "mcp_approval_request", "mcp_approval_response", "custom_tool_call",
		"compaction", "program", "additional_tools":
		return true
	}
	return false
}

// prelude reports whether an output item of type t, done, is not an
// answer by itself: the answer follows reasoning, the list of an MCP
// server's tools, the caller's approval echoed back, a compaction, a
// program (its output follows) and an additional tools item.
func prelude(t string) bool {
	return statusless(t) && !callItem(t)
}

// ItemsDone reports whether every output item the stream added so far was
// done, completed (an item without a status, done; see statusless), and
// one of them was more than a prelude to the answer (see prelude): what a
// stream that ends there without its final event (response.completed)
// answered is whole. OpenRouter's /responses closes some streams so,
// after the last output_item.done (moeru-ai/airi#2593, #2589). A stream
// cut inside an item, after reasoning or a tools' list alone, with an
// item done otherwise than completed, or with a function call done whose
// arguments stop inside a JSON value (see itemLife.args) is not whole;
// neither is one whose items are done without being added (llama.cpp's),
// which ends with its final event.
func (s *ResponseStream) ItemsDone() bool {
	l := &s.life
	return l.answered && l.open == 0 && !l.broken
}

// item returns what the part of key streamed so far, nil past
// maxStreamedItems.
func (s *ResponseStream) item(key partKey) *streamedItem {
	if it, ok := s.items[key]; ok {
		return it
	}
	if len(s.items) >= maxStreamedItems {
		return nil
	}
	if s.items == nil {
		s.items, s.seed = map[partKey]*streamedItem{}, maphash.MakeSeed()
		s.all.text.SetSeed(s.seed)
	}
	it := new(streamedItem)
	it.text.SetSeed(s.seed)
	s.items[key] = it
	return it
}

// streamed returns what the text of a done event for the part of key
// extends: the text that part's deltas streamed; when it streamed none,
// the text of every item's deltas (a server whose done event names the
// item otherwise than its deltas did, or whose ids change from delta to
// delta); when no delta streamed text, the item itself. It returns nil
// when text does not extend it, or past maxStreamedItems.
func (s *ResponseStream) streamed(key partKey, text string) *streamedItem {
	it := s.item(key)
	switch {
	case it == nil:
		return nil
	case !it.deltas && s.all.deltas:
		it = &s.all
	}
	if it.n > len(text) || maphash.String(s.seed, text[:it.n]) != it.text.Sum64() {
		return nil
	}
	return it
}

// add records that the item streamed text.
func (it *streamedItem) add(text string) {
	it.n += len(text)
	it.text.WriteString(text)
}

// callKey is the key of a tool call named id (its id or its call id).
func callKey(id string) partKey { return partKey{id, -1} }

// slotKey is the key of the tool call at output_index index, for the
// events that name no item: the shell tool's command events
// (ResponseShellCallCommandDeltaEvent and ResponseShellCallCommandDoneEvent
// in openai-go v3 responses/response.go have an output_index and a
// command_index, no item_id).
func slotKey(index int64) partKey { return partKey{part: -2 - max(index, 0)} }

// markArgs records that the arguments of the tool call named by keys (its
// id, and its call id: some llama.cpp builds give the final item only the
// latter; or its output_index, see slotKey) reached the caller, and
// reports whether they had not before under any of them (nor could be
// kept). A server that names a call otherwise in each event makes it
// count more than once as output, never less.
func (s *ResponseStream) markArgs(keys ...partKey) (first bool) {
	first = true
	for _, key := range keys {
		if key == callKey("") {
			continue
		}
		it := s.item(key)
		if it == nil || it.args {
			first = false
			continue
		}
		it.args = true
	}
	return first
}

// callArgs returns the arguments of the function call of item id that a
// done event gives as args: the arguments its deltas streamed when args
// is the text of the stream's messages followed by them. Osaurus'
// /v1/responses appends a call's arguments to the text of the message
// before it and sends both as the arguments of function_call_arguments.done
// and of the call's output_item.done (osaurus-ai/osaurus
// ResponseWriters.swift, OpenResponsesSSEWriter: accumulatedText is never
// reset). Any other args is returned as it is.
func (s *ResponseStream) callArgs(id, args string) string {
	it, ok := s.items[partKey{id, -1}]
	text := s.all.n
	if !ok || it.n == 0 || text == 0 || len(args) != text+it.n {
		return args
	}
	if maphash.String(s.seed, args[:text]) != s.all.text.Sum64() || maphash.String(s.seed, args[text:]) != it.text.Sum64() {
		return args
	}
	return args[text:]
}

// HeldError returns the failure of a response.failed that gave no reason
// and that no error event followed, once the body has ended: the stream's
// error, the server's word that the response failed.
func (s *ResponseStream) HeldError() error { return s.held }

// bareError reports whether err, an error of Decode, is the server's
// error event that names neither a code nor a message.
func bareError(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Server != nil && e.Server.Code == "" && e.Server.Message == "" && e.Server.Raw == ""
}
