package tokenpace

import (
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace/internal/codec"
)

// An answer begun again.
//
// Chutes (chutesai/chutes-api, api/chute/util.py, invoke) sends a
// request whose instance fails mid-answer to its next instance, up to
// five, and relays that one's answer after the chunks already sent: the
// caller's stream carries the first answer's start, then a second answer
// whole, under an id of its own, its role again, its text from the start,
// its finish reason and [DONE]. Read as one answer, the text is doubled
// and nothing says so. A chunk whose first choice opens an assistant
// message under a new id, after chunks that carried one id and some
// output, begins the answer again: the stream ends there, cut, the text
// before it kept, so that a Router continues it.
//
// Servers that give every chunk an id of its own (Foundry Local, with
// the role on every delta too) never carry one id twice, and servers
// that send the role on every delta (Z.ai, Volcengine Ark) keep their
// id: neither is read as begun again.
//
// A Responses stream begins again the same way with a second
// response.created: LiteLLM's proxy (BerriAI/litellm router.py,
// _aresponses_streaming_iterator), when its upstream fails in-band after
// a completed function call or some text, sends the request to its
// fallback and forwards that one's whole lifecycle in the same body, its
// own response.created, sequence numbers and output_index from 0, its
// calls made again, and response.completed. Read as one answer, the
// caller holds each call twice and nothing says so. A response.created
// under a new id, after events of this body carried output, ends the
// stream there, cut, the output before it kept. One before any output
// (the fallback's answer is then the only one the caller reads) is the
// answer's start: its id and model are the answer's (Timing.ResponseID,
// ResponseModel), not those of the response that failed before it, which
// holds none of the output and is no previous_response_id to go on from.
// So is the first response.created after a relay's own events: OmniRoute
// (diegosouzapw/OmniRoute open-sse/utils/earlyStreamKeepalive.ts), whose
// upstream is slow to answer, commits its 200 with response.in_progress
// events of a response "resp_keepalive_omniroute" that no server stores,
// then forwards the upstream's body, its response.created first.

// begun is what an event says of where the answer starts.
type begun int8

const (
	begunOn    begun = iota // the answer goes on
	begunAnew               // a response created under a new id before any output: the answer starts there
	begunAgain              // the answer begun again after output: the stream ends, cut
)

// answerStart follows the ids of a chat stream's chunks to tell a chunk
// that begins the answer again. The zero value is ready to use.
type answerStart struct {
	id     string // the id the chunks carried
	under  int    // how many chunks carried it
	output bool   // some of them carried output
	mixed  bool   // the chunks carried different ids
}

// againResponse reports what ev, the next event of a Responses stream,
// decoded as e, says of the answer's start: a response.created whose
// response's id is not the one an earlier response.created named begins
// it again after events that carried output, and anew before any (the
// first one too: an event before it may have named a response of the
// relay's own, as OmniRoute's keepalive response.in_progress does). An
// event without an id says nothing.
func (s *answerStart) againResponse(ev *responses.ResponseStreamEventUnion, e *codec.Event) begun {
	b := begunOn
	if ev.Type == "response.created" && ev.Response.ID != "" && ev.Response.ID != s.id {
		if s.id != "" && s.output {
			return begunAgain
		}
		if !s.output {
			b = begunAnew
		}
		s.id = ev.Response.ID
	}
	// An output item announced and nothing of it sent is no output: a
	// call that output_item.added opens (e.ToolCall, no Outputs) holds
	// no arguments the caller could run, and the openai SDK reads the
	// fallback's call after it as the one call.
	s.output = s.output || e.Outputs > 0
	return b
}

// again reports whether c, the next chunk of a chat stream, which
// carries outputs output-bearing deltas, begins the answer again: its
// first choice opens an assistant message under an id other than the
// one two or more chunks before it carried, with output among them. A
// chunk without an id says nothing.
func (s *answerStart) again(c *openai.ChatCompletionChunk, outputs int) bool {
	if c == nil || c.ID == "" || s.mixed {
		return false
	}
	if s.id == "" || c.ID == s.id {
		s.id, s.under, s.output = c.ID, s.under+1, s.output || outputs > 0
		return false
	}
	if s.under >= 2 && s.output && len(c.Choices) > 0 && c.Choices[0].Index == 0 && c.Choices[0].Delta.Role == "assistant" {
		return true
	}
	s.mixed = true
	return false
}

// begins reports what ev, the event decoded, says of the answer's start:
// a chat chunk or a Responses event that begins it again, or a Responses
// event that begins it anew (see answerStart).
func (r *reading) begins(ev *codec.Event) begun {
	switch o := ev.Orig.(type) {
	case *openai.ChatCompletionChunk:
		if r.start.again(o, ev.Outputs) {
			return begunAgain
		}
	case *responses.ResponseStreamEventUnion:
		return r.start.againResponse(o, ev)
	}
	return begunOn
}
