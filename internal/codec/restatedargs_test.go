package codec

import (
	"fmt"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestRestatedArguments feeds tool-call deltas through an Accumulator and
// checks the accumulated call's arguments: a delta that sends a call's
// whole arguments again, once they are one JSON object or array, is kept
// once (codex-lb before its #287 sends them twice more); any other piece
// is appended as it came, and the caller's chunk keeps what it carried.
func TestRestatedArguments(t *testing.T) {
	open := `{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}`
	piece := func(args string) string {
		return fmt.Sprintf(`{"index":0,"type":"function","function":{"arguments":%q}}`, args)
	}
	whole := `{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Zurich\"}"}}`
	tests := []struct {
		name   string
		deltas []string
		want   string
	}{
		{"codex-lb: pieces, the whole again, the call again", []string{open, piece(`{"city":`), piece(`"Zurich"}`), piece(`{"city":"Zurich"}`), whole}, `{"city":"Zurich"}`},
		{"a whole call in one delta, then again", []string{whole, whole}, `{"city":"Zurich"}`},
		{"an array restated", []string{open, piece(`[1,`), piece(`2]`), piece(`[1,2]`)}, `[1,2]`},
		{"a piece equal to an incomplete prefix", []string{open, piece(`{"a":"{"a":`), piece(`{"a":"{"a":`)}, `{"a":"{"a":{"a":"{"a":`},
		{"numbers, whose doubling is JSON", []string{open, piece(`1`), piece(`1`)}, `11`},
		{"a different whole object", []string{open, piece(`{"a":1}`), piece(`{"a":2}`)}, `{"a":1}{"a":2}`},
		{"an empty piece", []string{open, piece(`{}`), piece(``)}, `{}`},
	}
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Accumulator
			for i, d := range tt.deltas {
				data := fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[%s]}}]}`, d)
				ev, err := chat.Decode([]byte(data))
				if err != nil {
					t.Fatalf("Decode(%s): %v", data, err)
				}
				sent := ev.Chunk.Choices[0].Delta.ToolCalls[0].Function.Arguments
				if !a.Add(&ev) {
					t.Fatalf("Add refused delta %d: %s", i, d)
				}
				if got := ev.Chunk.Choices[0].Delta.ToolCalls[0].Function.Arguments; got != sent {
					t.Errorf("delta %d: the caller's chunk holds %q after Add, want %q as sent", i, got, sent)
				}
			}
			calls := a.Completion().Choices[0].Message.ToolCalls
			if len(calls) != 1 || calls[0].Function.Name != "get_weather" || calls[0].Function.Arguments != tt.want {
				t.Errorf("accumulated calls = %+v, want one get_weather(%s)", calls, tt.want)
			}
		})
	}
}
