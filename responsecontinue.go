package tokenpace

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// How a Router call's Responses stream reads as one response.
//
// A Router call on the Responses API may hand the caller the events of
// several tries: a continuation after a stall, a restart after a broken
// function call. Each route streams a response of its own (its id, its
// sequence numbers from 0, its message item), but the caller reads one:
//
//   - A continuation carries on the caller's response. Its
//     response.created and response.in_progress are not passed on, nor the
//     output_item.added and content_part.added of its message, whose events
//     carry on the message text part the caller has open: their item_id,
//     output_index and content_index are that part's, and the text of
//     output_text.done, content_part.done and output_item.done is the
//     part's whole text, the caller's so far followed by the
//     continuation's; its annotations are numbered and placed on from
//     the caller's, and the done events hold them all (see "How a
//     continuation's annotations carry on the caller's"). A
//     continuation that announces no message (no output_item.added:
//     LiteLLM's fake stream, see respStitch.adopt) carries it on all the
//     same, with the message of its text events and of its final
//     response. Its other output items follow the caller's, at the next
//     output_index.
//   - A restart replaces the caller's response: the caller is told by
//     Restarted on its first event passed on, and its output items start
//     over at output_index 0. Its response.created and
//     response.in_progress are not passed on either.
//   - Either way sequence_number goes on from the caller's last event,
//     without a gap or a reset, and the response of response.completed
//     and response.incomplete carries the id and created_at of the
//     caller's first response (a response.failed ends the call with its
//     error; it is not passed on). Its output holds every output item the
//     caller was handed whole since the last restart, in output_index
//     order: the message that carried on with its whole text, or, if the
//     continuation did not carry it on (it answered with a function call,
//     say), that message as the caller received it, incomplete. Its usage
//     counts the output tokens of the whole output since the last
//     restart (the tokens the tries before delivered, and the last try's
//     own; Timing.OutputTokens counts those before a restart too), and
//     the input tokens of the
//     last request, as Timing.PromptTokens does; total_tokens is their
//     sum.
//
// The events of the call's first try are passed on as they came: the
// stitch only notes what the caller has (the last sequence number, the
// response id, the open message part), from fields already decoded. The
// events of later tries are rewritten in their raw JSON and decoded again,
// so that RawJSON, AsAny and the As methods agree with the fields.

// respStitch keeps what the caller of a Router call on the Responses API
// has been handed, and rewrites the events of its continuations and
// restarts into that one response. The call's mu guards it.
type respStitch struct {
	next    int64     // sequence_number of the next event passed on
	id      string    // the id of the response the caller reads
	created string    // its created_at, as JSON
	items   int64     // output items passed on: the next output_index
	open    respPart  // the message text part the caller has open
	notes   partNotes // the annotations the caller received on it
	done    []outItem // output items passed on whole, as JSON

	// The try whose events are passed on now, and how they map to the
	// caller's response.
	tr      *try
	rewrite bool            // a continuation's or restart's events
	into    respPart        // the part open when it began, which its message carries on (none after a restart)
	merged  string          // the id of its message that carries on into
	index   map[int64]int64 // its output_index → the caller's
	prefix  string          // the text of into before the try
	shift   int             // its length in characters (see textShift)
	// intoNotes are the annotations into had before the try.
	intoNotes partNotes
	earlier   int64 // output tokens of the tries before it, since the last restart
}

// respPart is a message text part the caller has open.
type respPart struct {
	item  string // the message's id; "" when none is open
	index int64  // its output_index
	part  int64  // the part's content_index; -1 until the part is added
	start int    // where the part's text begins in the call's text
}

// outItem is an output item passed on whole.
type outItem struct {
	index int64
	raw   string
}

// handResponse passes on p, the events of chained try tr, as events of the
// caller's one response, and keeps the call's text. It returns the events
// kept, at the start of p (the dropped ones are cleared). c.mu is held.
func (c *call) handResponse(tr *try, p []arrived) []arrived {
	s := c.out.stitch
	if s.tr != tr {
		restart := tr.kind == AttemptRestart
		// A resume's events are the caller's response's own.
		s.begin(tr, c.out.at > 0 && tr.resume == nil, restart, c.out.text.String(), c.deliveredBefore())
	}
	n := 0
	for i := range p {
		ar := p[i]
		if ev, ok := ar.Orig.(*responses.ResponseStreamEventUnion); ok {
			if tr.resume != nil && ev.SequenceNumber < s.next {
				continue // replayed, and the caller has it
			}
			if s.rewrite {
				var keep bool
				if ev, keep = s.rewritten(ev); !keep {
					continue
				}
				ar.Orig = ev
			}
			s.observe(ev, c.out.text.Len())
		}
		p[n] = ar
		appendContent(&c.out.text, p[n:n+1])
		n++
	}
	clear(p[n:])
	return p[:n]
}

// deliveredBefore returns the output-bearing chunks the chain's tries
// before the one the caller reads delivered since its last restart.
// c.mu is held.
func (c *call) deliveredBefore() int64 {
	n := int64(0)
	for i := c.out.kept; i < c.out.at; i++ {
		n += int64(c.out.tries[i].a.delivered())
	}
	return n
}

// begin starts passing on the events of tr: rewritten unless it is the
// call's first, carrying on the caller's open message unless it is a
// restart. text is the call's text so far, earlier the output tokens
// delivered before tr since the last restart.
func (s *respStitch) begin(tr *try, rewrite, restart bool, text string, earlier int64) {
	s.tr, s.rewrite, s.merged, s.index, s.prefix, s.earlier = tr, rewrite, "", nil, "", earlier
	if restart {
		s.items, s.open, s.done, s.notes = 0, respPart{}, nil, partNotes{}
	}
	s.into, s.intoNotes = s.open, s.notes
	if s.into.item != "" && s.into.part >= 0 && s.into.start <= len(text) {
		s.prefix = text[s.into.start:]
	}
	s.shift = textShift(s.prefix)
}

// observe notes what event ev, passed on, gives the caller. textLen is
// the length of the call's text before ev.
func (s *respStitch) observe(ev *responses.ResponseStreamEventUnion, textLen int) {
	s.next = ev.SequenceNumber + 1
	switch ev.Type {
	case "response.created", "response.in_progress", "response.queued":
		if s.id == "" {
			s.id, s.created = ev.Response.ID, ev.Response.JSON.CreatedAt.Raw()
		}
	case "response.output_item.added":
		s.items = max(s.items, ev.OutputIndex+1)
		if ev.Item.Type == "message" {
			s.open = respPart{item: ev.Item.ID, index: ev.OutputIndex, part: -1}
		}
	case "response.content_part.added":
		if s.open.item != "" && ev.ItemID == s.open.item && s.open.part < 0 && ev.Part.Type == "output_text" {
			s.open.part, s.open.start, s.notes = ev.ContentIndex, textLen, partNotes{}
		}
	case "response.output_text.annotation.added":
		if s.open.item != "" && ev.ItemID == s.open.item && ev.ContentIndex == s.open.part {
			s.notes.note(ev)
		}
	case "response.output_item.done":
		if s.open.item != "" && ev.Item.ID == s.open.item {
			s.open = respPart{}
		}
		s.done = append(s.done, outItem{ev.OutputIndex, ev.Item.RawJSON()})
	}
}

// rewritten returns event ev of a continuation or restart as the caller
// reads it, or false if it is not passed on.
func (s *respStitch) rewritten(ev *responses.ResponseStreamEventUnion) (*responses.ResponseStreamEventUnion, bool) {
	switch ev.Type {
	case "response.created", "response.in_progress", "response.queued":
		return nil, false
	case "response.output_item.added":
		if s.merged == "" && s.into.item != "" && ev.Item.Type == "message" {
			s.merged = ev.Item.ID
			s.mapIndex(ev.OutputIndex, s.into.index)
			return nil, false
		}
	case "response.content_part.added":
		if s.mergedItem(ev.ItemID) && ev.ContentIndex == 0 && s.into.part >= 0 {
			return nil, false
		}
	case "response.output_text.delta", "response.output_text.done":
		s.adopt(ev.ItemID, ev.OutputIndex)
	}
	if ev.RawJSON() == "" {
		return ev, true // not decoded from JSON: nothing to rewrite
	}
	e := editor{raw: []byte(ev.RawJSON())}
	e.set("sequence_number", s.next)
	if ev.JSON.OutputIndex.Valid() {
		e.set("output_index", s.outputIndex(ev.OutputIndex))
	}
	merged := s.mergedItem(ev.ItemID)
	if merged {
		e.set("item_id", s.into.item)
		if ev.JSON.ContentIndex.Valid() {
			e.set("content_index", max(s.into.part, 0)+ev.ContentIndex)
		}
	}
	whole := merged && ev.ContentIndex == 0
	switch ev.Type {
	case "response.output_text.done":
		if whole {
			e.set("text", s.prefix+ev.Text)
		}
	case "response.content_part.done":
		if whole && ev.Part.Type == "output_text" {
			e.set("part.text", s.prefix+ev.Part.Text)
			s.carryNotes(&e, "part.annotations", gjson.Get(ev.RawJSON(), "part.annotations").Raw)
		}
	case "response.output_text.annotation.added":
		if whole {
			s.rewriteNote(&e, ev)
		}
	case "response.output_item.done":
		if s.mergedItem(ev.Item.ID) {
			e.setRaw("item", s.wholeMessage(ev.Item.RawJSON()))
		}
	case codec.RespCompleted, codec.RespIncomplete, codec.RespDone, "response.failed":
		s.rewriteResponse(&e, &ev.Response)
	}
	out := new(responses.ResponseStreamEventUnion)
	if e.err != nil || json.Unmarshal(e.raw, out) != nil {
		return ev, true // not expected: the event as it came
	}
	return out, true
}

// rewriteResponse rewrites the response r of a final event in e: the
// caller's id and created_at, its whole output and usage.
func (s *respStitch) rewriteResponse(e *editor, r *responses.Response) {
	if s.id != "" {
		e.set("response.id", s.id)
	}
	if s.created != "" {
		e.setRaw("response.created_at", s.created)
	}
	if r.JSON.Output.Valid() {
		byIndex := make(map[int64]string, len(s.done)+len(r.Output))
		for _, it := range s.done {
			byIndex[it.index] = it.raw
		}
		carried := s.carried(r.Output)
		for j := range r.Output {
			raw := r.Output[j].RawJSON()
			if j == carried {
				raw = s.wholeMessage(raw)
				s.mapIndex(int64(j), s.into.index)
			}
			byIndex[s.outputIndex(int64(j))] = raw
		}
		if _, ok := byIndex[s.into.index]; ok || s.into.item == "" || s.merged != "" {
			// The caller's open message is in the output already, or none is.
		} else if msg, err := s.cutMessage(); err == nil {
			byIndex[s.into.index] = msg
		}
		items := make([]string, 0, len(byIndex))
		for _, i := range slices.Sorted(maps.Keys(byIndex)) {
			items = append(items, byIndex[i])
		}
		e.setRaw("response.output", "["+strings.Join(items, ",")+"]")
	}
	if u := r.Usage; r.JSON.Usage.Valid() && s.earlier > 0 {
		out := u.OutputTokens + s.earlier
		e.set("response.usage.output_tokens", out)
		e.set("response.usage.total_tokens", u.InputTokens+out)
	}
}

// wholeMessage returns the message item raw of the try, which carries on
// the caller's open message, as the caller's: its id, and the whole text
// in its first part.
func (s *respStitch) wholeMessage(raw string) string {
	e := editor{raw: []byte(raw)}
	e.set("id", s.into.item)
	if t := gjson.Get(raw, "content.0.text"); t.Type == gjson.String {
		e.set("content.0.text", s.prefix+t.Str)
		s.carryNotes(&e, "content.0.annotations", gjson.Get(raw, "content.0.annotations").Raw)
	}
	if e.err != nil {
		return raw
	}
	return string(e.raw)
}

// cutMessage returns the message the caller has open when the try did
// not carry it on (it answered with a function call, say): incomplete,
// with the text the caller received.
func (s *respStitch) cutMessage() (string, error) {
	e := editor{raw: []byte(`{"type":"message","status":"incomplete","role":"assistant","content":[]}`)}
	e.set("id", s.into.item)
	if s.into.part >= 0 {
		e.setRaw("content.-1", `{"type":"output_text","annotations":[],"logprobs":[]}`)
		e.set("content.0.text", s.prefix)
		if len(s.intoNotes.kept) > 0 {
			e.setRaw("content.0.annotations", "["+strings.Join(s.intoNotes.kept, ",")+"]")
		}
	}
	return string(e.raw), e.err
}

// adopt makes id, the item of a text event of the try at output index
// index, the try's message that carries on the caller's open part when
// the try announced none (no output_item.added of a message came before
// it). LiteLLM's fake stream, for a model it does not know to stream,
// sends no output_item.added: the text, if any, in output_text.delta
// events whose item_id is the response's id, then response.completed
// (litellm/responses/streaming_iterator.py, MockResponsesAPIStreamingIterator;
// BerriAI/litellm#21090).
func (s *respStitch) adopt(id string, index int64) {
	if s.merged == "" && s.into.item != "" && s.into.part >= 0 && id != "" {
		s.merged = id
		s.mapIndex(index, s.into.index)
	}
}

// carried returns the index in output, the output of the try's final
// response, of the message that carries on the caller's open message:
// the try's merged message; or, when the try announced none or named it
// otherwise in its events than in its final response (LiteLLM's fake
// stream: see adopt), its first message. -1 when there is none, or the
// caller has no message open.
func (s *respStitch) carried(output []responses.ResponseOutputItemUnion) int {
	if s.into.item == "" {
		return -1
	}
	first := -1
	for j := range output {
		if s.mergedItem(output[j].ID) {
			return j
		}
		if first < 0 && output[j].Type == "message" {
			first = j
		}
	}
	return first
}

// mergedItem reports whether id is that of the try's message that
// carries on the caller's.
func (s *respStitch) mergedItem(id string) bool { return s.merged != "" && id == s.merged }

// mapIndex maps the try's output index j to the caller's i.
func (s *respStitch) mapIndex(j, i int64) {
	if s.index == nil {
		s.index = make(map[int64]int64)
	}
	s.index[j] = i
}

// outputIndex returns the caller's output_index of the try's output
// index j: the one it was mapped to, else the caller's next.
func (s *respStitch) outputIndex(j int64) int64 {
	if i, ok := s.index[j]; ok {
		return i
	}
	i := s.items
	s.items++
	s.mapIndex(j, i)
	return i
}

// editor edits raw JSON with sjson, keeping the first error.
type editor struct {
	raw []byte
	err error
}

func (e *editor) set(path string, v any) {
	if e.err == nil {
		e.raw, e.err = sjson.SetBytes(e.raw, path, v)
	}
}

func (e *editor) setRaw(path, raw string) {
	if e.err == nil {
		e.raw, e.err = sjson.SetRawBytes(e.raw, path, []byte(raw))
	}
}
