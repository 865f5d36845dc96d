package tokenpace_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"

	"github.com/tokenpace/tokenpace"
)

// conformance is a fixture of testdata/conformance: a documented stream of
// a real server (see its README), replayed with its read timing, and what
// the caller must get from it.
type conformance struct {
	recording
	conformanceMeta
}

// conformanceMeta is what a fixture's first line holds beside its
// recording header.
type conformanceMeta struct {
	Server, Source, Quirk string
	Request               struct {
		Path string
		Body struct {
			Model           string
			MaxTokens       int64 `json:"max_tokens"`
			MaxOutputTokens int64 `json:"max_output_tokens"`
			// Tools are the tools the request offered, by name: a chat
			// call offers them too.
			Tools []struct{ Function, Custom struct{ Name string } }
			// N is how many choices a chat request asked for; the chat
			// call of a fixture whose answer is whole asks for as many
			// when it is a whole number over 1 (a refused request's may
			// hold any number, and a broken answer goes on to a second
			// route that answers one choice).
			N float64
		}
	}
	Expect conformanceExpect
}

// conformanceExpect is what the caller must get from a fixture.
type conformanceExpect struct {
	Text, Reasoning, Finish string
	// AccFinish is the finish reason of Accumulated()'s first choice,
	// when it is not Finish, the server's.
	AccFinish string `json:"accumulated_finish"`
	// DeltasText is what the stream's own text deltas hold, where a
	// server sends some of the text, or all of it ("" given), in
	// another event; absent: Text.
	DeltasText *string `json:"deltas_text"`
	// AccReasoning, when set, is Accumulated()'s reasoning, where a
	// server streams it unparsed in the text (the stream's own reasoning
	// deltas then hold Reasoning).
	AccReasoning  string                             `json:"acc_reasoning"`
	PromptTokens  int                                `json:"prompt_tokens"`
	CachedTokens  int                                `json:"cached_tokens"`
	OutputTokens  int                                `json:"output_tokens"`
	UsageReported *bool                              `json:"usage_reported"` // default: whether prompt_tokens is set
	ToolCalls     []struct{ Name, Arguments string } `json:"tool_calls"`
	Error         string                             // the StreamError kind, e.g. "error event"
	ErrorMessage  string                             `json:"error_message"`
	// Empty: the answer is complete but holds no output, which a Router
	// takes as failing before its first token (see Policy) and so sends
	// to its next route, as it continues a broken one.
	Empty bool
	// RouterEnds: the answer broke where a content policy blocked it, and
	// a Router ends the call with the same text and error rather than
	// carry it on at its next route, which would write what the policy
	// withheld.
	RouterEnds bool `json:"router_ends"`
	// Restarts: the answer broke where its server rejected it whole (a
	// verdict on the finished answer), and a Router sends the request
	// afresh to its next route rather than carry the rejected words on:
	// the caller read them, and Accumulated starts over at the next
	// route's answer.
	Restarts bool `json:"restarts"`
	// TTFTMS, when set, is when the first output-bearing chunk arrived,
	// in ms from the request: the TTFT the caller must see.
	TTFTMS float64 `json:"ttft_ms"`
	// OutputChunks, when set, is how many output-bearing events the
	// caller's Timing counts: each token once.
	OutputChunks int `json:"output_chunks"`
	// Audio is the accumulated message's audio, of an answer spoken as
	// audio.
	Audio struct {
		ID, Transcript, Data string
		ExpiresAt            int64 `json:"expires_at"`
	}
	// Annotations are the URLs the accumulated message cites, of a chat
	// answer whose model searched the web.
	Annotations []string
}

// UnmarshalJSON takes a fixture's first line.
func (c *conformance) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &c.recording); err != nil {
		return err
	}
	return json.Unmarshal(b, &c.conformanceMeta)
}

// loadConformance reads every fixture of testdata/conformance.
func loadConformance(t *testing.T) map[string]conformance {
	t.Helper()
	paths, err := filepath.Glob("testdata/conformance/*.jsonl")
	if err != nil || len(paths) < 16 {
		t.Fatalf("conformance fixtures: %d (%v), want at least 16", len(paths), err)
	}
	all := map[string]conformance{}
	for _, p := range paths {
		var c conformance
		c.Reads = readFixture(t, p, &c)
		if c.Server == "" || c.Source == "" || c.Quirk == "" {
			t.Fatalf("%s: a fixture names its server, its source and its quirk", p)
		}
		all[strings.TrimSuffix(filepath.Base(p), ".jsonl")] = c
	}
	return all
}

// read is what the caller read from a stream of any API.
type read struct {
	text, reasoning string
	acc             string // Accumulated(), or Text()
	accFinish       string // Accumulated()'s finish reason, of a chat stream
	accReasoning    string // Accumulated()'s reasoning, of a chat stream
	images          int    // the images the chunks carried, of a chat stream
	accImages       int    // and Accumulated()'s
	toolCalls       []openai.ChatCompletionMessageToolCallUnion
	accUsage        *openai.CompletionUsage                    // Accumulated().Usage, of a chat or completions stream
	audio           openai.ChatCompletionAudio                 // Accumulated()'s, of a chat stream
	param           openai.ChatCompletionAssistantMessageParam // the accumulated message's ToAssistantMessageParam
	annotations     []string                                   // the URLs Accumulated()'s message cites, of a chat stream
	err             error
	tm              *tokenpace.Timing
	received        time.Time // when the first output reached the caller (virtual time in a synctest bubble)
}

// readChat reads a chat stream to its end.
func readChat(s *tokenpace.Stream[openai.ChatCompletionChunk]) read {
	var r read
	var text, reasoning strings.Builder
	for s.Next() {
		for _, ch := range s.Current().Choices {
			if ch.Index != 0 {
				continue
			}
			text.WriteString(ch.Delta.Content)
			if r.received.IsZero() && (ch.Delta.Content != "" || ch.Delta.Refusal != "" || len(ch.Delta.ToolCalls) > 0) {
				r.received = time.Now()
			}
			if f, ok := ch.Delta.JSON.ExtraFields["images"]; ok {
				r.images += len(gjson.Parse(f.Raw()).Array())
			}
			for _, k := range []string{"reasoning_content", "reasoning"} {
				var v string
				if f, ok := ch.Delta.JSON.ExtraFields[k]; ok && json.Unmarshal([]byte(f.Raw()), &v) == nil {
					reasoning.WriteString(v)
					if r.received.IsZero() && v != "" {
						r.received = time.Now()
					}
				}
			}
		}
	}
	s.Close()
	r.text, r.reasoning, r.err, r.tm = text.String(), reasoning.String(), s.Err(), s.Timing()
	if acc := s.Accumulated(); len(acc.Choices) > 0 {
		m := acc.Choices[0].Message
		r.acc, r.toolCalls, r.audio, r.param = m.Content, m.ToolCalls, m.Audio, m.ToAssistantMessageParam()
		r.accFinish = acc.Choices[0].FinishReason
		for _, a := range m.Annotations {
			r.annotations = append(r.annotations, a.URLCitation.URL)
		}
		r.accImages = len(gjson.Parse(m.JSON.ExtraFields["images"].Raw()).Array())
		for _, k := range []string{"reasoning_content", "reasoning"} {
			if f, ok := m.JSON.ExtraFields[k]; ok && r.accReasoning == "" {
				_ = json.Unmarshal([]byte(f.Raw()), &r.accReasoning)
			}
		}
	}
	r.accUsage = &s.Accumulated().Usage
	return r
}

// readCompletionStream reads a completions stream to its end.
func readCompletionStream(s *tokenpace.Stream[openai.Completion]) read {
	var r read
	var text strings.Builder
	for s.Next() {
		for _, ch := range s.Current().Choices {
			if ch.Index == 0 {
				text.WriteString(ch.Text)
				if r.received.IsZero() && ch.Text != "" {
					r.received = time.Now()
				}
			}
		}
	}
	s.Close()
	r.text, r.acc, r.err, r.tm = text.String(), s.Text(), s.Err(), s.Timing()
	r.accUsage = &s.Accumulated().Usage
	return r
}

// readResponseStream reads a Responses stream to its end.
func readResponseStream(s *tokenpace.Stream[responses.ResponseStreamEventUnion]) read {
	var r read
	var text, reasoning strings.Builder
	for s.Next() {
		if s.Restarted() {
			// The calls built so far were the dropped output's.
			r.toolCalls = nil
		}
		ev := s.Current()
		if r.received.IsZero() && ev.Delta != "" && strings.HasSuffix(ev.Type, ".delta") {
			r.received = time.Now()
		}
		switch ev.Type {
		case "response.output_text.delta":
			text.WriteString(ev.Delta)
		case "response.reasoning_text.delta", "response.reasoning_summary_text.delta":
			reasoning.WriteString(ev.Delta)
		case "response.output_item.done":
			args := ev.Item.Arguments.OfString
			switch ev.Item.Type {
			case "custom_tool_call":
				args = ev.Item.Input
				fallthrough
			case "function_call":
				r.toolCalls = append(r.toolCalls, openai.ChatCompletionMessageToolCallUnion{
					Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: ev.Item.Name, Arguments: args}})
			}
		case "response.completed":
			// A call no event streamed is in the final response alone
			// (SGLang's gpt-oss stream).
			if len(r.toolCalls) > 0 {
				break
			}
			for _, it := range ev.Response.Output {
				if it.Type == "function_call" {
					r.toolCalls = append(r.toolCalls, openai.ChatCompletionMessageToolCallUnion{
						Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: it.Name, Arguments: it.Arguments.OfString}})
				}
			}
		}
	}
	s.Close()
	r.text, r.reasoning, r.acc, r.err, r.tm = text.String(), reasoning.String(), s.Text(), s.Err(), s.Timing()
	return r
}

// secondRoute answers every request with extra, as a chat or a completions
// stream.
var secondRoute = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	if strings.HasSuffix(r.URL.Path, "/completions") && !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		_, _ = w.Write([]byte(`data: {"id":"s","object":"text_completion","model":"second","choices":[{"index":0,"text":"` + extra + `","finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"))
		return
	}
	if strings.HasSuffix(r.URL.Path, "/responses") {
		_, _ = w.Write([]byte(`data: {"type":"response.output_text.delta","item_id":"m","delta":"` + extra + `"}` + "\n\n" +
			`data: {"type":"response.completed","response":{"id":"s","object":"response","status":"completed","model":"second","output":[]}}` + "\n\n"))
		return
	}
	_, _ = w.Write([]byte(chunk("s", extra, "stop", "") + "data: [DONE]\n\n"))
})

// TestConformance replays every documented server habit of
// testdata/conformance through the Client and through a Router that
// continues a broken stream, and sends an empty answer, to a second
// route, on the API the fixture
// calls, and checks what the caller gets: its text and reasoning,
// Accumulated (or Text), the tool calls, the finish reason and usage in
// Timing, the error (none where the answer was complete), and the memory
// the call took.
func TestConformance(t *testing.T) {
	for name, fx := range loadConformance(t) {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				url, hc := serve(t, byModel(map[string]http.Handler{fx.Request.Body.Model: replay(fx.recording), "second": secondRoute}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				r, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true},
					tokenpace.Route{Name: "first", Model: fx.Request.Body.Model}, route("second"))
				if err != nil {
					t.Fatal(err)
				}
				call := func(client, router bool) read {
					switch fx.Request.Path {
					case "/v1/responses":
						p := respond(fx.Request.Body.Model, int(cmp.Or(fx.Request.Body.MaxOutputTokens, 64)))
						if router {
							return readResponseStream(r.NewResponseStreaming(context.Background(), p))
						}
						return readResponseStream(c.NewResponseStreaming(context.Background(), p))
					case "/v1/completions":
						p := openai.CompletionNewParams{Model: openai.CompletionNewParamsModel(fx.Request.Body.Model),
							Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("def add")}}
						if router {
							return readCompletionStream(r.NewCompletionStreaming(context.Background(), p))
						}
						return readCompletionStream(c.NewCompletionStreaming(context.Background(), p))
					}
					p := chat(fx.Request.Body.Model, int(cmp.Or(fx.Request.Body.MaxTokens, 64)))
					if n := fx.Request.Body.N; n > 1 && n == float64(int64(n)) && fx.Expect.Error == "" {
						p.N = openai.Int(int64(n))
					}
					for _, tool := range fx.Request.Body.Tools {
						p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
							Name: cmp.Or(tool.Function.Name, tool.Custom.Name)}))
					}
					if router {
						return readChat(r.NewStreaming(context.Background(), p))
					}
					return readChat(c.NewStreaming(context.Background(), p))
				}

				before := allocated()
				got := call(true, false)
				if a := allocated() - before; a > 16<<20 {
					t.Errorf("Client: the call allocated %d MiB, want under 16", a>>20)
				}
				checkConformance(t, "Client", fx, got)
				if fx.Expect.Error == "" {
					if last := fx.Reads[len(fx.Reads)-1]; got.tm.E2E() != ms(last.TMS) {
						t.Errorf("Client: E2E %v, want the last read's arrival %v", got.tm.E2E(), ms(last.TMS))
					}
				}

				// The Router continues a broken stream on the next route and
				// never a complete one.
				routed := call(false, true)
				want := fx
				if (fx.Expect.Error != "" || fx.Expect.Empty) && !fx.Expect.RouterEnds {
					want.Expect.Text += extra
					want.Expect.DeltasText = nil
					if len(fx.Expect.ToolCalls) > 0 || fx.Expect.Restarts {
						// Restarted, not continued: the caller read the
						// text before the call, and Accumulated starts
						// over at the next route's answer.
						read := want.Expect.Text
						want.Expect.DeltasText, want.Expect.Text = &read, extra
					}
					want.Expect.Error, want.Expect.Finish, want.Expect.AccFinish = "", "stop", ""
					want.Expect.PromptTokens, want.Expect.OutputTokens, want.Expect.UsageReported = 0, 0, nil
					// A broken stream's tool calls are not continued: the
					// next route answers afresh (TestLlamaCppToolCallsCut).
					want.Expect.ToolCalls = nil
				}
				checkConformance(t, "Router", want, routed)
				if n := len(routed.tm.Attempts); (n == 1) != (fx.Expect.Error == "" && !fx.Expect.Empty || fx.Expect.RouterEnds) {
					t.Errorf("Router: %d attempts (%v), want 1 for a complete answer or one a policy blocked, 2 for a broken or empty one", n, outcomes(routed.tm))
				}
			})
		})
	}
}

// checkConformance checks what who read against what fx expects.
func checkConformance(t *testing.T, who string, fx conformance, got read) {
	t.Helper()
	e := fx.Expect
	deltas := e.Text
	if e.DeltasText != nil {
		deltas = *e.DeltasText
	}
	if got.text != deltas || got.acc != e.Text {
		t.Errorf("%s: read %q, accumulated %q; want %q and %q", who, got.text, got.acc, deltas, e.Text)
	}
	if got.reasoning != e.Reasoning {
		t.Errorf("%s: reasoning %q, want %q", who, got.reasoning, e.Reasoning)
	}
	accReasoning := e.Reasoning
	if e.AccReasoning != "" {
		accReasoning = e.AccReasoning
	}
	if got.param.Role != "" && got.accReasoning != accReasoning {
		t.Errorf("%s: Accumulated()'s reasoning %q, want %q", who, got.accReasoning, accReasoning)
	}
	if got.accImages != got.images {
		t.Errorf("%s: Accumulated() holds %d images, want the %d the chunks carried", who, got.accImages, got.images)
	}
	switch {
	case e.Error == "" && got.err != nil:
		t.Errorf("%s: Err() = %v, want nil: the answer was complete", who, got.err)
	case e.Error != "":
		var se *tokenpace.StreamError
		var ae *openai.Error
		// A cut stream, an event that is no JSON, or an answer that is no
		// stream carries no server error; every other kind does.
		serverSaid := e.ErrorMessage != "" || e.Error != tokenpace.KindTruncated.String() &&
			e.Error != tokenpace.KindMalformed.String() && e.Error != tokenpace.KindContentType.String()
		if !errors.As(got.err, &se) || se.Kind.String() != e.Error || (serverSaid && (!errors.As(got.err, &ae) || ae.Message != e.ErrorMessage)) {
			t.Errorf("%s: Err() = %v, want a %q *StreamError with the message %q", who, got.err, e.Error, e.ErrorMessage)
		}
	}
	tm := got.tm
	if e.Finish != "" && tm.FinishReason != e.Finish {
		t.Errorf("%s: FinishReason %q, want %q", who, tm.FinishReason, e.Finish)
	}
	if f := cmp.Or(e.AccFinish, e.Finish); f != "" && got.accFinish != "" && got.accFinish != f {
		t.Errorf("%s: Accumulated()'s finish reason %q, want %q", who, got.accFinish, f)
	}
	usage := e.PromptTokens > 0
	if e.UsageReported != nil {
		usage = *e.UsageReported
	}
	if tm.UsageReported != usage || (usage && (tm.PromptTokens != e.PromptTokens || tm.OutputTokens != e.OutputTokens)) ||
		(e.OutputTokens > 0 && tm.OutputTokens != e.OutputTokens) {
		t.Errorf("%s: usage (%v, %d, %d), want (%v, %d, %d)", who, tm.UsageReported, tm.PromptTokens, tm.OutputTokens, usage, e.PromptTokens, e.OutputTokens)
	}
	if u := got.accUsage; u != nil && usage && (u.PromptTokens != int64(e.PromptTokens) || u.CompletionTokens != int64(e.OutputTokens) ||
		u.PromptTokensDetails.CachedTokens != int64(e.CachedTokens)) {
		t.Errorf("%s: Accumulated().Usage (%d, %d cached, %d), want (%d, %d, %d)", who,
			u.PromptTokens, u.PromptTokensDetails.CachedTokens, u.CompletionTokens, e.PromptTokens, e.CachedTokens, e.OutputTokens)
	}
	if usage && tm.CachedTokens != e.CachedTokens {
		t.Errorf("%s: %d prompt tokens served from the cache, want %d", who, tm.CachedTokens, e.CachedTokens)
	}
	if len(got.toolCalls) != len(e.ToolCalls) {
		t.Errorf("%s: %d tool calls, want %d", who, len(got.toolCalls), len(e.ToolCalls))
	}
	for i := range min(len(got.toolCalls), len(e.ToolCalls)) {
		name, args := got.toolCalls[i].Function.Name, got.toolCalls[i].Function.Arguments
		if got.toolCalls[i].Type == "custom" {
			name, args = got.toolCalls[i].Custom.Name, got.toolCalls[i].Custom.Input
		}
		if name != e.ToolCalls[i].Name || args != e.ToolCalls[i].Arguments {
			t.Errorf("%s: tool call %d = %s(%s), want %s(%s)", who, i, name, args, e.ToolCalls[i].Name, e.ToolCalls[i].Arguments)
		}
	}
	// The next request's assistant message, built by openai-go's ToParam
	// from the accumulated one, holds every call as it was made.
	for i, p := range got.param.ToolCalls {
		if i >= len(got.toolCalls) {
			break
		}
		tc := got.toolCalls[i]
		if f, c := p.OfFunction, p.OfCustom; (f == nil || f.ID != tc.ID || f.Function.Name != tc.Function.Name || f.Function.Arguments != tc.Function.Arguments) &&
			(c == nil || c.ID != tc.ID || c.Custom.Name != tc.Custom.Name || c.Custom.Input != tc.Custom.Input) {
			t.Errorf("%s: the accumulated message's param holds tool call %d as %+v, want %s (%s)", who, i, p, tc.ID, tc.Type)
		}
	}
	if !slices.Equal(got.annotations, e.Annotations) {
		t.Errorf("%s: Accumulated()'s message cites %q, want %q", who, got.annotations, e.Annotations)
	}
	a := e.Audio
	if got.audio.ID != a.ID || got.audio.Transcript != a.Transcript || got.audio.Data != a.Data || got.audio.ExpiresAt != a.ExpiresAt {
		t.Errorf("%s: accumulated audio (id %q, transcript %q, %d bytes of data, expires %d), want (%q, %q, %d, %d)", who,
			got.audio.ID, got.audio.Transcript, len(got.audio.Data), got.audio.ExpiresAt, a.ID, a.Transcript, len(a.Data), a.ExpiresAt)
	}
	if got.param.Audio.ID != a.ID {
		t.Errorf("%s: the accumulated message's param refers to audio %q, want %q", who, got.param.Audio.ID, a.ID)
	}
	if e.TTFTMS > 0 && tm.TTFT() != ms(e.TTFTMS) {
		t.Errorf("%s: TTFT %v, want %v, the first output's arrival", who, tm.TTFT(), ms(e.TTFTMS))
	}
	if e.OutputChunks > 0 && tm.OutputChunks != e.OutputChunks {
		t.Errorf("%s: %d output chunks, want %d", who, tm.OutputChunks, e.OutputChunks)
	}
	if e.Text != "" || len(e.ToolCalls) > 0 || a.Transcript != "" {
		if tm.TTFT() <= 0 || tm.TTFT() > tm.E2E() {
			t.Errorf("%s: TTFT %v, E2E %v; want a first token within the call", who, tm.TTFT(), tm.E2E())
		}
	}
}
