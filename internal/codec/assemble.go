package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace/internal/sse"
)

// Assemble reads body, an event stream that a server sent in answer to a
// non-streaming request of req, and returns the JSON of the whole
// response as req's API sends it, for openai-go to decode. Some servers
// stream whatever the request says (unsloth's and mini-sglang's servers,
// Azure AI Foundry's DeepSeek deployments, some gateways): openai-go
// would fail to decode their answer. Each event is bounded and decoded
// as a stream's is (maxLine bounds a line, Cost an event), and gathered
// as Accumulator gathers a stream: a chat completion's message holds the
// content, the reasoning (as reasoning_content), the refusal, the tool
// calls, a legacy function call and the audio; a completion's choices their text; a response is the one its
// final event holds. The error is an *Error (a malformed event, one over
// a bound, an error event, or a stream cut before its answer ended: an
// event cut short counts as one only if the body ends after it, see
// IsEventCut), or the body's read error.
func Assemble(req Request, body io.Reader, maxLine int) ([]byte, error) {
	sr := sse.NewReader(body, maxLine)
	b, dec := req.whole(), DecoderFor(req)
	done := false
	for {
		data, err := sr.Next()
		if err == io.EOF {
			break
		}
		var el *sse.ErrorLine
		if errors.As(err, &el) {
			return nil, LineError(el)
		}
		if err != nil {
			return nil, err
		}
		if bytes.HasPrefix(data, []byte("[DONE]")) {
			done = true
			break
		}
		if _, err := Cost(req, data); err != nil {
			return nil, err
		}
		ev, err := dec.Decode(data)
		if sr.ErrorEvent() {
			err = NamedError(data, err)
		}
		if IsEventCut(err) {
			if _, nerr := sr.Next(); nerr == nil {
				err = MalformedCut(err) // the body went on: no cut
			}
		}
		if err != nil {
			return nil, err
		}
		if err := b.add(&ev); err != nil {
			return nil, err
		}
	}
	if !b.ended(done) {
		return nil, &Error{Truncated: true, Detail: "event stream ended before its answer"}
	}
	return b.json()
}

// wholeBuilder gathers a stream's events into one whole response.
type wholeBuilder interface {
	add(ev *Event) error
	// ended reports whether the answer is whole: [DONE] came (done), or
	// every choice finished (a Responses stream: its final event came).
	ended(done bool) bool
	json() ([]byte, error)
}

// chatWhole gathers a chat completion.
type chatWhole struct {
	acc      Accumulator
	n        int  // the choices asked for
	all      bool // every one of them finished
	finished Finished
}

func (r chat) whole() wholeBuilder { return &chatWhole{n: r.Choices()} }

func (w *chatWhole) add(ev *Event) error {
	if !w.acc.Add(ev) {
		return &Error{Detail: "a chunk the accumulator refused"}
	}
	for _, ch := range ev.Chunk.Choices {
		if Ends(&ch) && w.finished.Add(ch.Index, w.n) {
			w.all = true
		}
	}
	return nil
}

func (w *chatWhole) ended(done bool) bool { return done || w.all }

func (w *chatWhole) json() ([]byte, error) {
	cc := &w.acc.Completion().ChatCompletion
	out := wholeChat{wholeHead: wholeHead{ID: cc.ID, Object: "chat.completion", Created: cc.Created, Model: cc.Model, Usage: usageJSON(cc.Usage)},
		Choices: []wholeChatChoice{}}
	for i, ch := range cc.Choices {
		m := wholeMessage{Role: "assistant", Content: ch.Message.Content, Refusal: ch.Message.Refusal,
			ReasoningContent: reasoningOf(&ch.Message), Images: json.RawMessage(ch.Message.JSON.ExtraFields[imagesField].Raw())}
		if a := ch.Message.Audio; a.ID != "" || a.Data != "" || a.Transcript != "" {
			m.Audio = &wholeAudio{ID: a.ID, Data: a.Data, Transcript: a.Transcript, ExpiresAt: a.ExpiresAt}
		}
		for _, tc := range ch.Message.ToolCalls {
			t := wholeToolCall{ID: tc.ID, Type: tc.Type, Function: &wholeFunc{tc.Function.Name, tc.Function.Arguments}}
			if tc.Type == "custom" {
				t.Function, t.Custom = nil, &wholeInput{tc.Custom.Name, tc.Custom.Input}
			}
			m.ToolCalls = append(m.ToolCalls, t)
		}
		//lint:ignore SA1019 servers still stream legacy function calls
		if fc := ch.Message.FunctionCall; fc.Name != "" || fc.Arguments != "" {
			m.FunctionCall = &wholeFunc{fc.Name, fc.Arguments}
		}
		out.Choices = append(out.Choices, wholeChatChoice{Index: int64(i), Message: m, FinishReason: ch.FinishReason})
	}
	return json.Marshal(out)
}

// completionWhole gathers a completion.
type completionWhole struct {
	id, model string
	created   int64
	text      []*strings.Builder
	finish    []string
	usage     *wholeUsage
	n         int  // the choices asked for
	all       bool // every one of them finished
	finished  Finished
}

func (r completion) whole() wholeBuilder { return &completionWhole{n: r.Choices()} }

func (w *completionWhole) add(ev *Event) error {
	if w.id == "" {
		w.id, w.model, w.created = ev.Chunk.ID, ev.Chunk.Model, ev.Chunk.Created
	}
	for _, ch := range ev.Chunk.Choices {
		for int64(len(w.text)) <= ch.Index {
			w.text, w.finish = append(w.text, new(strings.Builder)), append(w.finish, "")
		}
		w.text[ch.Index].WriteString(ch.Delta.Content)
		if ch.FinishReason != "" {
			w.finish[ch.Index] = ch.FinishReason
			if w.finished.Add(ch.Index, w.n) {
				w.all = true
			}
		}
	}
	if ev.HasUsage {
		w.usage = usageJSON(lastUsage(ev.Chunk, ev.Usage))
	}
	return nil
}

func (w *completionWhole) ended(done bool) bool { return done || w.all }

func (w *completionWhole) json() ([]byte, error) {
	out := wholeCompletion{wholeHead: wholeHead{ID: w.id, Object: "text_completion", Created: w.created, Model: w.model, Usage: w.usage},
		Choices: []wholeCompletionChoice{}}
	for i := range w.text {
		out.Choices = append(out.Choices, wholeCompletionChoice{Index: int64(i), Text: w.text[i].String(), FinishReason: w.finish[i]})
	}
	return json.Marshal(out)
}

// responseWhole gathers a response: the one its final event holds. When
// that one has no output though text was streamed (vLLM before December
// 2025: vllm-project/vllm#30223), its output is a message of the streamed
// text.
type responseWhole struct {
	final string
	text  strings.Builder
}

func (response) whole() wholeBuilder { return &responseWhole{} }

func (w *responseWhole) add(ev *Event) error {
	if e, ok := ev.Orig.(*responses.ResponseStreamEventUnion); ok && ev.Final {
		w.final = e.Response.RawJSON()
	}
	for _, ch := range ev.Chunk.Choices {
		w.text.WriteString(ch.Delta.Content)
	}
	return nil
}

func (w *responseWhole) ended(bool) bool { return w.final != "" }

func (w *responseWhole) json() ([]byte, error) {
	var r map[string]json.RawMessage
	if w.text.Len() == 0 || json.Unmarshal([]byte(w.final), &r) != nil {
		return []byte(w.final), nil
	}
	if o := string(bytes.TrimSpace(r["output"])); o != "" && o != "[]" && o != "null" {
		return []byte(w.final), nil
	}
	out, err := json.Marshal([]any{map[string]any{
		"type": "message", "id": "msg_streamed", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": w.text.String(), "annotations": []any{}}},
	}})
	if err != nil {
		return nil, err
	}
	r["output"] = out
	return json.Marshal(r)
}

// The JSON of a whole chat completion and completion, as OpenAI sends
// them.
type (
	wholeHead struct {
		ID      string      `json:"id"`
		Object  string      `json:"object"`
		Created int64       `json:"created"`
		Model   string      `json:"model"`
		Usage   *wholeUsage `json:"usage,omitempty"`
	}
	wholeChat struct {
		wholeHead
		Choices []wholeChatChoice `json:"choices"`
	}
	wholeChatChoice struct {
		Index        int64        `json:"index"`
		Message      wholeMessage `json:"message"`
		FinishReason string       `json:"finish_reason"`
	}
	wholeMessage struct {
		Role             string          `json:"role"`
		Content          string          `json:"content"`
		Refusal          string          `json:"refusal,omitempty"`
		ReasoningContent string          `json:"reasoning_content,omitempty"`
		Images           json.RawMessage `json:"images,omitempty"`
		ToolCalls        []wholeToolCall `json:"tool_calls,omitempty"`
		FunctionCall     *wholeFunc      `json:"function_call,omitempty"`
		Audio            *wholeAudio     `json:"audio,omitempty"`
	}
	wholeAudio struct {
		ID         string `json:"id"`
		Data       string `json:"data"`
		Transcript string `json:"transcript"`
		ExpiresAt  int64  `json:"expires_at"`
	}
	wholeToolCall struct {
		ID       string      `json:"id"`
		Type     string      `json:"type"`
		Function *wholeFunc  `json:"function,omitempty"`
		Custom   *wholeInput `json:"custom,omitempty"`
	}
	wholeFunc struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	wholeInput struct {
		Name  string `json:"name"`
		Input string `json:"input"`
	}
	wholeCompletion struct {
		wholeHead
		Choices []wholeCompletionChoice `json:"choices"`
	}
	wholeCompletionChoice struct {
		Index        int64  `json:"index"`
		Text         string `json:"text"`
		FinishReason string `json:"finish_reason"`
	}
	wholeUsage struct {
		PromptTokens        int64 `json:"prompt_tokens"`
		CompletionTokens    int64 `json:"completion_tokens"`
		TotalTokens         int64 `json:"total_tokens"`
		PromptTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	}
)

// usageJSON returns u as a whole response's usage; nil when it holds no
// count.
func usageJSON(u openai.CompletionUsage) *wholeUsage {
	if u.PromptTokens == 0 && u.CompletionTokens == 0 && u.TotalTokens == 0 {
		return nil
	}
	w := &wholeUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	w.PromptTokensDetails.CachedTokens = u.PromptTokensDetails.CachedTokens
	return w
}
