package codec

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3"
)

// OpenLLM 0.3's streamed completions, which never finish.
//
// BentoML OpenLLM's server of 0.3.7 to 0.3.14 (bentoml/OpenLLM
// openllm-python/src/openllm/_service.py, completion_v1) writes each
// piece of its runner's text as a completion chunk whose choice holds the
// text and index alone: "TODO: logprobs, finish_reason". Its attrs
// classes (openllm-python/src/openllm/protocol/openai.py), unstructured
// with their defaults, put the members in their own order, choices
// first, and give every choice a logprobs object of four empty lists and
// a null finish_reason. No chunk ever carries a finish reason, nor a
// usage; [DONE] follows the runner's last piece, and an exception of the
// runner ends the body without it. Read as any other stream, every whole
// answer was a cut one (KindTruncated "no finish_reason"), and a Router
// carried on an answer that was whole.

// openLLMChoice is how every chunk of OpenLLM 0.3 begins: its choices
// member first, the first choice's text first.
var openLLMChoice = []byte(`{"choices":[{"text":`)

// openLLMLogprobs is the logprobs of every choice of OpenLLM 0.3, asked
// for or not.
const openLLMLogprobs = `{"text_offset":[],"token_logprobs":[],"tokens":[],"top_logprobs":[]}`

// OpenLLMCompletionStream decodes a completions stream as the request
// does, and follows what it needs to tell, at [DONE], an answer of
// OpenLLM 0.3 (see AtDone): whether every chunk so far was in its shape
// (see openLLMChunk), and whether the answer had any output.
type OpenLLMCompletionStream struct {
	completion
	seen    bool          // a chunk was looked at
	openLLM bool          // every chunk so far was in OpenLLM 0.3's shape
	output  bool          // some chunk carried output
	pairs   surrogateJoin // a character split between two events (see surrogateJoin)
}

// Decode decodes the next event of the stream.
func (s *OpenLLMCompletionStream) Decode(data []byte) (Event, error) {
	data = s.pairs.join(data)
	ev, err := s.completion.Decode(data)
	if err != nil || (s.seen && !s.openLLM) {
		return ev, err
	}
	s.seen = true
	s.openLLM = openLLMChunk(data, ev)
	s.output = s.output || ev.Outputs > 0
	return ev, nil
}

// AtDone returns the finish OpenLLM 0.3 leaves out: at [DONE], an event
// whose one choice finished for "stop", when every chunk was in its
// shape and some output came. ok is false for any other stream. A
// completion cut at its max_tokens is not told apart: the server never
// says.
func (s *OpenLLMCompletionStream) AtDone() (ev Event, ok bool) {
	if !s.openLLM || !s.output {
		return Event{}, false
	}
	model, _ := json.Marshal(s.Model())
	ev, err := s.completion.Decode([]byte(`{"id":"","object":"text_completion","created":0,"model":` + string(model) +
		`,"choices":[{"index":0,"text":"","logprobs":null,"finish_reason":"stop"}]}`))
	return ev, err == nil
}

// openLLMChunk reports whether data, decoded as ev, is a chunk of
// OpenLLM 0.3: its choices member first, one choice of index 0 with no
// finish reason and the logprobs of empty lists, the object
// "text_completion", an id "cmpl-" and 32 hex digits, and no usage.
func openLLMChunk(data []byte, ev Event) bool {
	comp, ok := ev.Orig.(*openai.Completion)
	if !ok || !bytes.HasPrefix(data, openLLMChoice) || len(comp.Choices) != 1 ||
		comp.JSON.Object.Raw() != `"text_completion"` || comp.JSON.Usage.Raw() != "" {
		return false
	}
	ch := &comp.Choices[0]
	hex, ok := strings.CutPrefix(comp.ID, "cmpl-")
	return ok && len(hex) == 32 && strings.Trim(hex, "0123456789abcdef") == "" &&
		ch.Index == 0 && ch.FinishReason == "" && ch.JSON.Logprobs.Raw() == openLLMLogprobs
}
