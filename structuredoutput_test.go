package tokenpace_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
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
