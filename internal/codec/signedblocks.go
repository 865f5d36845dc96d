package codec

import (
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3"
)

// maxSignedBytes bounds the thinking blocks SignedBlocks accumulates of
// one answer: past it, it keeps none.
const maxSignedBytes = 1 << 20

// SignedBlocks accumulates the signed thinking blocks of a streamed chat
// answer's first choice, in the field a relay of Claude streamed them in
// and reads them back from on the next request. Claude with extended
// thinking refuses a tool call's next turn whose assistant message does
// not start with the thinking block it signed, whole and with its
// signature (400 "messages.1.content.0.type: Expected `thinking` or
// `redacted_thinking`, but found `tool_use`"; BerriAI/litellm#15601).
// LiteLLM streams the blocks in thinking_blocks, each delta a piece of
// the thinking with a null signature, then a delta of the signature
// alone, a redacted block whole (litellm/llms/anthropic/chat/handler.py),
// and builds Claude's blocks from the message's thinking_blocks
// (litellm/litellm_core_utils/prompt_templates/factory.py,
// anthropic_messages_pt). Portkey's gateway, strict OpenAI compliance
// off, streams each of Claude's blocks as content_blocks entries of its
// index whose delta holds "thinking", "signature", "data" or "text", the
// type left out (see contentBlocks), and builds Claude's blocks from the
// message's content_blocks, in place of its content
// (Portkey-AI/gateway src/providers/anthropic/chatComplete.ts,
// transformAssistantMessage). JSON returns the blocks as Claude wrote
// them, {"type":"thinking","thinking","signature"} and
// {"type":"redacted_thinking","data"}, in the order they began; a
// thinking block that was never signed is left out, as LiteLLM's own
// stream builder leaves it. A thinking_blocks entry without a thinking
// member is not LiteLLM's and is left out: Envoy AI Gateway's signature
// alone, and the entry this package writes itself from another relay's
// reasoning (see thinkingObject, reasoningObject), which that relay never
// sent and would get back with its thinking lost. The zero value is
// ready to use.
type SignedBlocks struct {
	field  string // the field the blocks came in, the first seen
	blocks []*signedBlock
	open   *signedBlock         // LiteLLM's block being written, until its signature
	at     map[int]*signedBlock // Portkey's blocks, by index
	size   int
	over   bool
}

// signedBlock is one thinking block, its thinking in pieces, or a
// redacted one (data).
type signedBlock struct {
	thinking        strings.Builder
	signature, data string
}

// Add adds the thinking blocks of ev's first choice, if any: Portkey's
// content_blocks, else LiteLLM's thinking_blocks (those the client wrote
// from content_blocks, or from another relay's reasoning object, beside
// them, hold no thinking and no block is made of them).
func (s *SignedBlocks) Add(ev *Event) {
	c, ok := ev.Orig.(*openai.ChatCompletionChunk)
	if !ok || len(c.Choices) == 0 || s.over || c.Choices[0].Index != 0 {
		return
	}
	extra := c.Choices[0].Delta.JSON.ExtraFields
	if len(extra) == 0 {
		return
	}
	field := contentBlocks
	f, ok := extra[field]
	if !ok {
		field = thinkingBlocks
		if f, ok = extra[field]; !ok {
			return
		}
	}
	raw := f.Raw()
	if s.size += len(raw); s.size > maxSignedBytes {
		*s = SignedBlocks{over: true}
		return
	}
	if s.field == "" {
		s.field = field
	} else if s.field != field {
		return
	}
	if field == contentBlocks {
		s.addIndexed(raw)
	} else {
		s.addPieces(raw)
	}
}

// addPieces adds LiteLLM's thinking_blocks of one delta.
func (s *SignedBlocks) addPieces(raw string) {
	var pieces []struct {
		Type, Signature, Data string
		Thinking              *string
	}
	if json.Unmarshal([]byte(raw), &pieces) != nil {
		return
	}
	for _, p := range pieces {
		if p.Type == "redacted_thinking" {
			s.open = nil
			if p.Data != "" {
				s.blocks = append(s.blocks, &signedBlock{data: p.Data})
			}
			continue
		}
		if p.Thinking == nil {
			continue
		}
		if s.open == nil {
			s.open = new(signedBlock)
			s.blocks = append(s.blocks, s.open)
		}
		s.open.thinking.WriteString(*p.Thinking)
		if p.Signature != "" {
			s.open.signature, s.open = p.Signature, nil
		}
	}
}

// addIndexed adds Portkey's content_blocks of one delta; a text block's
// pieces are the delta's content, the caller's to give back.
func (s *SignedBlocks) addIndexed(raw string) {
	var entries []struct {
		Index *int
		Delta struct {
			Thinking, Signature, Data *string
		}
	}
	if json.Unmarshal([]byte(raw), &entries) != nil {
		return
	}
	for _, e := range entries {
		d := e.Delta
		if e.Index == nil || d.Thinking == nil && d.Signature == nil && d.Data == nil {
			continue
		}
		b := s.at[*e.Index]
		if b == nil {
			if s.at == nil {
				s.at = make(map[int]*signedBlock)
			}
			b = new(signedBlock)
			s.at[*e.Index] = b
			s.blocks = append(s.blocks, b)
		}
		if d.Thinking != nil {
			b.thinking.WriteString(*d.Thinking)
		}
		if d.Signature != nil && *d.Signature != "" {
			b.signature = *d.Signature
		}
		if d.Data != nil && *d.Data != "" {
			b.data = *d.Data
		}
	}
}

// Field returns the field the blocks came in: thinking_blocks or
// content_blocks; "" when none came.
func (s *SignedBlocks) Field() string { return s.field }

// JSON returns the signed blocks (see SignedBlocks), or "" when the
// answer had none or more than maxSignedBytes.
func (s *SignedBlocks) JSON() string {
	if s.over {
		return ""
	}
	var out []map[string]string
	for _, b := range s.blocks {
		switch {
		case b.data != "":
			out = append(out, map[string]string{"type": "redacted_thinking", "data": b.data})
		case b.signature != "":
			out = append(out, map[string]string{"type": "thinking", "thinking": b.thinking.String(), "signature": b.signature})
		}
	}
	return signedJSON(out)
}

// SignedBlocksOf returns the signed blocks of raw, a whole answer's
// thinking_blocks or content_blocks (Portkey's holds the text blocks
// too, which are the message's content), in SignedBlocks' form, a
// thinking block without a thinking member left out as SignedBlocks
// leaves it; "" when it holds none.
func SignedBlocksOf(raw string) string {
	var blocks []struct {
		Type, Signature, Data string
		Thinking              *string
	}
	if json.Unmarshal([]byte(raw), &blocks) != nil {
		return ""
	}
	var out []map[string]string
	for _, b := range blocks {
		switch {
		case b.Type == "redacted_thinking" && b.Data != "":
			out = append(out, map[string]string{"type": "redacted_thinking", "data": b.Data})
		case b.Type == "thinking" && b.Signature != "" && b.Thinking != nil:
			out = append(out, map[string]string{"type": "thinking", "thinking": *b.Thinking, "signature": b.Signature})
		}
	}
	return signedJSON(out)
}

// signedJSON returns blocks as JSON, "" for none.
func signedJSON(blocks []map[string]string) string {
	if len(blocks) == 0 {
		return ""
	}
	b, err := json.Marshal(blocks)
	if err != nil {
		return ""
	}
	return string(b)
}
