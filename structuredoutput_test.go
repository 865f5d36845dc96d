package tokenpace_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// person is the structured answer of the tests below: a server that
// constrains its output to the request's schema answers it whole, from
// its opening brace, whatever messages come before.
const person = `{"name": "Alice", "age": 30, "city": "Paris"}`

// A structured answer (response_format json_schema or json_object, a
// Responses text.format of either) that stalls midway is restarted, not
// continued: the next route constrains its output to the schema too, so a
// continuation would begin a new object after the caller's half of one,
// and the caller would hold text that is no JSON, with a nil error.
func TestStructuredOutputRestarts(t *testing.T) {
	schema := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "person", Schema: map[string]any{"type": "object"}}
	chatFormats := map[string]openai.ChatCompletionNewParamsResponseFormatUnion{
		"chat json_schema": {OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: schema}},
		"chat json_object": {OfJSONObject: &shared.ResponseFormatJSONObjectParam{}},
	}
	for name, format := range chatFormats {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := stallingRouter(t, 2, simulate.Fixed{TTFT: 100 * msec, ITL: 20 * msec}, simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec},
					simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return person, true }))
				p := chat("big", 100)
				p.ResponseFormat = format
				s := r.NewStreaming(context.Background(), p)
				var restarts []int
				for i := 0; s.Next(); i++ {
					if s.Restarted() {
						restarts = append(restarts, i)
					}
				}
				s.Close()
				checkStructured(t, s.Err(), s.Text(), s.Timing(), restarts)
			})
		})
	}
	responseFormats := map[string]responses.ResponseFormatTextConfigUnionParam{
		"responses json_schema": {OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{Name: "person", Schema: map[string]any{"type": "object"}}},
		"responses json_object": {OfJSONObject: &shared.ResponseFormatJSONObjectParam{}},
	}
	for name, format := range responseFormats {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := stallingRouter(t, 2, simulate.Fixed{TTFT: 100 * msec, ITL: 20 * msec}, simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec},
					simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return person, true }))
				p := respond("big", 100)
				p.Text.Format = format
				s := r.NewResponseStreaming(context.Background(), p)
				_, restarts := readEvents(s)
				checkStructured(t, s.Err(), s.Text(), s.Timing(), restarts)
			})
		})
	}
}

// checkStructured checks what the caller of TestStructuredOutputRestarts
// got: no error, the whole object from the restart on, told at the first
// chunk of the restart.
func checkStructured(t *testing.T, err error, text string, tm *tokenpace.Timing, restarts []int) {
	t.Helper()
	if err != nil {
		t.Fatalf("Err() = %v, want nil", err)
	}
	if text != person || !json.Valid([]byte(text)) {
		t.Errorf("Text() = %q, want %q", text, person)
	}
	if got, want := kinds(tm), []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptRestart}; !slices.Equal(got, want) {
		t.Errorf("kinds = %v, want %v", got, want)
	}
	if len(restarts) != 1 {
		t.Errorf("Restarted() at %v, want once", restarts)
	}
	if tm.TTFT() != 100*time.Millisecond {
		t.Errorf("TTFT() = %v, want 100ms (the first token the caller read)", tm.TTFT())
	}
}

// A constraint on the answer's form that a server reads beside
// openai-go's typed parameters (vLLM's guided_json, guided_regex,
// guided_grammar, guided_choice and structured_outputs, the first four
// inside NVIDIA NIM's nvext too, llama.cpp's json_schema and grammar,
// SGLang's regex and ebnf, a response_format of type structural_tag,
// TGI's json or regex, or Fireworks' grammar), set as an extra field of the parameters or
// with option.WithJSONSet, makes the answer restarted, not continued, as
// response_format does: the next route would begin the constrained form
// anew after the caller's half of it. A field that constrains nothing
// (top_k, a null) leaves the answer continued.
func TestExtraConstraintRestarts(t *testing.T) {
	schema := map[string]any{"type": "object"}
	tests := []struct {
		name  string
		api   tokenpace.API
		extra map[string]any         // set on the parameters
		opts  []option.RequestOption // given to the call
		kind  tokenpace.AttemptKind
	}{
		{name: "chat guided_json", extra: map[string]any{"guided_json": schema}, kind: tokenpace.AttemptRestart},
		{name: "chat guided_regex", extra: map[string]any{"guided_regex": `\{.*\}`}, kind: tokenpace.AttemptRestart},
		{name: "chat guided_grammar", extra: map[string]any{"guided_grammar": `root ::= "{" [^}]* "}"`}, kind: tokenpace.AttemptRestart},
		{name: "chat guided_choice", extra: map[string]any{"guided_choice": []string{person}}, kind: tokenpace.AttemptRestart},
		{name: "chat structured_outputs", extra: map[string]any{"structured_outputs": map[string]any{"json": schema}}, kind: tokenpace.AttemptRestart},
		{name: "chat llama.cpp json_schema", extra: map[string]any{"json_schema": schema}, kind: tokenpace.AttemptRestart},
		{name: "chat llama.cpp grammar", extra: map[string]any{"grammar": `root ::= "{" [^}]* "}"`}, kind: tokenpace.AttemptRestart},
		{name: "chat SGLang regex", extra: map[string]any{"regex": `\{.*\}`}, kind: tokenpace.AttemptRestart},
		{name: "chat SGLang ebnf", extra: map[string]any{"ebnf": `root ::= "{" [^}]* "}"`}, kind: tokenpace.AttemptRestart},
		{name: "completion SGLang regex", api: tokenpace.APICompletions, extra: map[string]any{"regex": `\{.*\}`}, kind: tokenpace.AttemptRestart},
		{name: "chat WithJSONSet structural_tag", opts: []option.RequestOption{option.WithJSONSet("response_format", map[string]any{"type": "structural_tag", "format": map[string]any{"type": "const_string", "value": person}})}, kind: tokenpace.AttemptRestart},
		{name: "chat WithJSONSet Fireworks grammar", opts: []option.RequestOption{option.WithJSONSet("response_format", map[string]any{"type": "grammar", "grammar": `root ::= "{" [^}]* "}"`})}, kind: tokenpace.AttemptRestart},
		{name: "chat WithJSONSet TGI regex", opts: []option.RequestOption{option.WithJSONSet("response_format", map[string]any{"type": "regex", "value": `\{.*\}`})}, kind: tokenpace.AttemptRestart},
		{name: "chat NIM nvext guided_json", extra: map[string]any{"nvext": map[string]any{"guided_json": schema}}, kind: tokenpace.AttemptRestart},
		{name: "completion WithJSONSet NIM nvext guided_regex", api: tokenpace.APICompletions, opts: []option.RequestOption{option.WithJSONSet("nvext.guided_regex", `\{.*\}`)}, kind: tokenpace.AttemptRestart},
		{name: "chat NIM nvext without a constraint", extra: map[string]any{"nvext": map[string]any{"repetition_penalty": 1.1}}, kind: tokenpace.AttemptContinuation},
		{name: "chat WithJSONSet guided_json", opts: []option.RequestOption{option.WithJSONSet("guided_json", schema)}, kind: tokenpace.AttemptRestart},
		{name: "chat WithJSONSet structured_outputs", opts: []option.RequestOption{option.WithJSONSet("structured_outputs.regex", `\{.*\}`)}, kind: tokenpace.AttemptRestart},
		{name: "completion grammar", api: tokenpace.APICompletions, extra: map[string]any{"grammar": `root ::= "{" [^}]* "}"`}, kind: tokenpace.AttemptRestart},
		{name: "completion WithJSONSet guided_json", api: tokenpace.APICompletions, opts: []option.RequestOption{option.WithJSONSet("guided_json", schema)}, kind: tokenpace.AttemptRestart},
		{name: "responses guided_json", api: tokenpace.APIResponses, extra: map[string]any{"guided_json": schema}, kind: tokenpace.AttemptRestart},
		{name: "responses WithJSONSet text.format", api: tokenpace.APIResponses, opts: []option.RequestOption{option.WithJSONSet("text.format", map[string]any{"type": "json_object"})}, kind: tokenpace.AttemptRestart},
		{name: "chat top_k", extra: map[string]any{"top_k": 40}, kind: tokenpace.AttemptContinuation},
		{name: "chat null guided_json", extra: map[string]any{"guided_json": nil}, kind: tokenpace.AttemptContinuation},
		{name: "chat WithJSONSet top_k", opts: []option.RequestOption{option.WithJSONSet("top_k", 40)}, kind: tokenpace.AttemptContinuation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := stallingRouter(t, 2, simulate.Fixed{TTFT: 100 * msec, ITL: 20 * msec}, simulate.Fixed{TTFT: 50 * msec, ITL: 10 * msec},
					simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return person, true }))
				ctx := context.Background()
				var text string
				var err error
				var tm *tokenpace.Timing
				var restarts []int
				switch tt.api {
				case tokenpace.APICompletions:
					p := complete("big", 100)
					p.SetExtraFields(tt.extra)
					s := r.NewCompletionStreaming(ctx, p, tt.opts...)
					for i := 0; s.Next(); i++ {
						if s.Restarted() {
							restarts = append(restarts, i)
						}
					}
					s.Close()
					text, err, tm = s.Text(), s.Err(), s.Timing()
				case tokenpace.APIResponses:
					p := respond("big", 100)
					p.SetExtraFields(tt.extra)
					s := r.NewResponseStreaming(ctx, p, tt.opts...)
					_, restarts = readEvents(s)
					text, err, tm = s.Text(), s.Err(), s.Timing()
				default:
					p := chat("big", 100)
					p.SetExtraFields(tt.extra)
					s := r.NewStreaming(ctx, p, tt.opts...)
					for i := 0; s.Next(); i++ {
						if s.Restarted() {
							restarts = append(restarts, i)
						}
					}
					s.Close()
					text, err, tm = s.Text(), s.Err(), s.Timing()
				}
				if tt.kind == tokenpace.AttemptRestart {
					checkStructured(t, err, text, tm, restarts)
					return
				}
				if err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				if got, want := kinds(tm), []tokenpace.AttemptKind{tokenpace.AttemptFirst, tokenpace.AttemptContinuation}; !slices.Equal(got, want) || len(restarts) != 0 {
					t.Errorf("kinds = %v, restarts at %v; want %v, none", got, restarts, want)
				}
			})
		})
	}
}
