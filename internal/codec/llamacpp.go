package codec

import (
	"bytes"
	"encoding/json"
	"regexp"

	"github.com/openai/openai-go/v3"
)

// llama.cpp's own completion format.
//
// llama.cpp's server answers its /completion and /infill endpoints in a
// format of its own: events {"content", "stop", "stop_type",
// "tokens_predicted", "tokens_evaluated", "timings"} with no [DONE], or one
// such object for a request that does not stream. Its builds before
// #10974 (31 December 2024) answered /v1/completions so too, though they
// spoke the chat API's format at /v1/chat/completions: openai-go then
// reads every event as a completion without choices, and a caller gets
// no text and no error. The client reads such an answer as the
// completion it says.

// LlamaCppEvent is one event of llama.cpp's own completion format, or
// its whole answer.
type LlamaCppEvent struct {
	Content   *string `json:"content"`
	Stop      bool    `json:"stop"`
	StopType  string  `json:"stop_type"`
	Limit     bool    `json:"stopped_limit"` // builds before stop_type, and ik_llama.cpp
	Model     string  `json:"model"`
	Predicted int64   `json:"tokens_predicted"`
	Evaluated *int64  `json:"tokens_evaluated"`
	Timings   struct {
		CacheN int64 `json:"cache_n"`
	} `json:"timings"`
	Error json.RawMessage `json:"error"`
}

// How every object of llama.cpp's own format begins: the server writes
// its members in the order it builds them, the content first in builds
// of 2024, after the index since.
var (
	llamaCppContent = []byte(`{"content":`)
	llamaCppIndex   = []byte(`{"index":`)
)

// ParseLlamaCpp returns data as an event of llama.cpp's own format, and
// whether it is one: an object that begins as the server writes them,
// holds no choices and no error, and stops or has content.
func ParseLlamaCpp(data []byte) (LlamaCppEvent, bool) {
	var ev LlamaCppEvent
	if !bytes.HasPrefix(data, llamaCppContent) && !bytes.HasPrefix(data, llamaCppIndex) {
		return ev, false
	}
	var shape struct {
		LlamaCppEvent
		Choices json.RawMessage `json:"choices"`
	}
	if json.Unmarshal(data, &shape) != nil || shape.Choices != nil || len(shape.Error) > 0 {
		return ev, false
	}
	ev = shape.LlamaCppEvent
	return ev, ev.Content != nil || ev.Stop
}

// IgnoredInput reports whether ev, the last event or the whole answer of
// /infill, says the server took none of the request's input: it
// evaluated no prompt token and made no text, where a fill-in-the-middle
// prompt holds at least the model's own fill-in-the-middle tokens.
func (ev LlamaCppEvent) IgnoredInput() bool {
	return ev.Stop && ev.Evaluated != nil && *ev.Evaluated == 0 && ev.Predicted == 0 && (ev.Content == nil || *ev.Content == "")
}

// Completion returns the completion, or completion chunk, that says what
// ev says, with the id, model and creation time given: its content as the
// text, and once it stops (or whole) a finish reason ("length" for a stop
// at the token limit) and its usage.
func (ev LlamaCppEvent) Completion(id, model string, created int64, whole bool) []byte {
	type choice struct {
		Index        int     `json:"index"`
		Text         string  `json:"text"`
		FinishReason *string `json:"finish_reason"`
		Logprobs     any     `json:"logprobs"`
	}
	type usage struct {
		Prompt  int64 `json:"prompt_tokens"`
		Output  int64 `json:"completion_tokens"`
		Total   int64 `json:"total_tokens"`
		Details struct {
			Cached int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	}
	c := struct {
		ID      string   `json:"id"`
		Object  string   `json:"object"`
		Created int64    `json:"created"`
		Model   string   `json:"model"`
		Choices []choice `json:"choices"`
		Usage   *usage   `json:"usage,omitempty"`
	}{ID: id, Object: "text_completion", Created: created, Model: model}
	ch := choice{}
	if ev.Content != nil {
		ch.Text = *ev.Content
	}
	if ev.Stop || whole {
		reason := "stop"
		if ev.StopType == "limit" || ev.Limit {
			reason = "length"
		}
		ch.FinishReason = &reason
		evaluated := int64(0)
		if ev.Evaluated != nil {
			evaluated = *ev.Evaluated
		}
		u := &usage{Prompt: evaluated, Output: ev.Predicted, Total: evaluated + ev.Predicted}
		u.Details.Cached = min(max(ev.Timings.CacheN, 0), evaluated)
		c.Usage = u
	}
	c.Choices = []choice{ch}
	b, _ := json.Marshal(c)
	return b
}

// llamaCpp2024Whole matches a whole chat answer of llama.cpp's server
// from #5882 (March 2024) to #10917 (December 2024): its members in the
// order the server built them, the model right before the object (later
// builds put system_fingerprint between), the usage, then an id of
// "chatcmpl-" and 32 letters and digits.
var llamaCpp2024Whole = regexp.MustCompile(`"model":"(?:[^"\\]|\\.)*","object":"chat\.completion","usage":\{"completion_tokens":\d+,"prompt_tokens":\d+,"total_tokens":\d+\},"id":"chatcmpl-[0-9A-Za-z]{32}"`)

// llamaCppWholeLength gives the finish reason "length" to the one choice
// of res, a whole chat answer of limit output tokens at most, when
// llama.cpp's server of 2024 made it (see llamaCpp2024Whole), said
// "stop", and counted every token allowed. Those builds said "stop" for
// every whole answer (format_final_response_oaicompat took the presence
// of stopped_word, always there, for a stop on a word, until #10643),
// and a caller that checks for "length" to ask for the rest would take
// the cut answer for a whole one. They count the end-of-sequence token
// in tokens_predicted, and stop at the limit for it too
// (stopped_limit): an answer that used every token allowed was stopped
// at its limit.
func llamaCppWholeLength(res *openai.ChatCompletion, limit int64) {
	if limit <= 0 || len(res.Choices) != 1 || res.Choices[0].FinishReason != "stop" || res.Usage.CompletionTokens < limit {
		return
	}
	if llamaCpp2024Whole.MatchString(res.RawJSON()) {
		res.Choices[0].FinishReason = "length"
	}
}
