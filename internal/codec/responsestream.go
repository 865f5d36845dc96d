package codec

import (
	"hash/maphash"

	"github.com/openai/openai-go/v3/responses"
)

// Response done events that ResponseStream reads.
const (
	respTextDone = "response.output_text.done"
	respItemDone = "response.output_item.done"
	respItemAdd  = "response.output_item.added"
)

// maxStreamedItems bounds the output items a ResponseStream keeps: past
// it, an item's done event is taken as the server's word that it was
// streamed.
const maxStreamedItems = 128

// ResponseStream decodes the events of one Responses stream in order. It
// keeps how much text each output item streamed (its length and a hash,
// not a copy) and which function calls streamed, so that what a server sends only in an item's done event
// reaches the caller: llama.cpp's /v1/responses streams the parse of a
// partial answer as deltas, but the end of its final parse (text held
// back while it might open a tool call, a call recognised only in the
// whole output) only in output_text.done and output_item.done.
//   - An output_text.done whose text extends what its item streamed
//     carries the rest as the chat view's content, an output of its own.
//     A text that does not extend it is the server's to reconcile: the
//     caller keeps what it was streamed.
//   - An output_item.done of a function call that streamed no added
//     event or arguments is a tool call and an output.
type ResponseStream struct {
	response
	items map[string]*streamedItem
	seed  maphash.Seed
}

// streamedItem is what one output item streamed: the length and hash of
// its text, and whether it is a function call that streamed.
type streamedItem struct {
	n    int
	text maphash.Hash
	call bool
}

// Decoder returns a ResponseStream of r.
func (r response) Decoder() Decoder { return &ResponseStream{response: r} }

// Decode decodes the next event of the stream.
func (s *ResponseStream) Decode(data []byte) (Event, error) {
	out, err := s.response.Decode(data)
	if err != nil {
		return out, err
	}
	ev, _ := out.Orig.(*responses.ResponseStreamEventUnion)
	switch ev.Type {
	case RespTextDelta:
		if it := s.item(ev.ItemID); it != nil {
			it.n += len(ev.Delta)
			it.text.WriteString(ev.Delta)
		}
	case RespArgsDelta:
		if it := s.item(ev.ItemID); it != nil {
			it.call = true
		}
	case respItemAdd:
		if ev.Item.Type == "function_call" {
			s.markCall(ev.Item)
		}
	case respTextDone:
		it := s.item(ev.ItemID)
		if it == nil {
			break
		}
		if len(ev.Text) > it.n && maphash.String(s.seed, ev.Text[:it.n]) == it.text.Sum64() {
			rest := ev.Text[it.n:]
			it.n += len(rest)
			it.text.WriteString(rest)
			out.Chunk.Choices[0].Delta.Content = rest
			out.Outputs = 1
		}
	case respItemDone:
		if ev.Item.Type != "function_call" {
			break
		}
		if s.markCall(ev.Item) {
			out.ToolCall = true
			out.Outputs = 1
		}
	}
	return out, nil
}

// item returns what the item of key streamed so far, nil past
// maxStreamedItems.
func (s *ResponseStream) item(key string) *streamedItem {
	if it, ok := s.items[key]; ok {
		return it
	}
	if len(s.items) >= maxStreamedItems {
		return nil
	}
	if s.items == nil {
		s.items, s.seed = map[string]*streamedItem{}, maphash.MakeSeed()
	}
	it := new(streamedItem)
	it.text.SetSeed(s.seed)
	s.items[key] = it
	return it
}

// markCall records that the function call item streamed, under its id
// and its call id (llama.cpp's final items have only the latter), and
// reports whether neither had streamed before (nor could be kept).
func (s *ResponseStream) markCall(item responses.ResponseOutputItemUnion) (first bool) {
	first = true
	for _, key := range [...]string{item.ID, item.CallID} {
		if key == "" {
			continue
		}
		it := s.item(key)
		if it == nil || it.call {
			first = false
			continue
		}
		it.call = true
	}
	return first
}
