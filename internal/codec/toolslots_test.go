package codec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestToolSlots feeds the tool-call deltas of each documented habit
// through ToolSlots into openai-go's accumulator and checks the calls it
// holds, and that the chunks the caller is given are left as they came.
func TestToolSlots(t *testing.T) {
	type call struct{ ID, Name, Args string }
	tests := []struct {
		name   string
		chunks []string // each a chunk's choices
		want   []call
	}{
		{"OpenAI fragments", []string{
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"get_weather","arguments":""}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}}]`,
		}, []call{{"a", "get_weather", `{"city":"Paris"}`}}},
		{"parallel calls interleaved", []string{
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{"}},{"index":1,"id":"b","function":{"name":"g","arguments":"["}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"]"}},{"index":0,"function":{"arguments":"}"}}]}}]`,
		}, []call{{"a", "f", "{}"}, {"b", "g", "[]"}}},
		{"the index in a call's first delta only, parallel calls", []string{
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":""}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"{\"x\":1}"}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"g","arguments":""}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"{\"y\":"}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"2}"}}]}}]`,
		}, []call{{"a", "f", `{"x":1}`}, {"b", "g", `{"y":2}`}}},
		{"Ollama: every call at index 0", []string{
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"write_file","arguments":"{\"path\":\"a\"}"}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"write_file","arguments":"{\"path\":\"b\"}"}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"read_file","arguments":"{\"path\":\"c\"}"}}]}}]`,
		}, []call{{"a", "write_file", `{"path":"a"}`}, {"b", "write_file", `{"path":"b"}`}, {"c", "read_file", `{"path":"c"}`}}},
		{"two calls at index 0 in one chunk, then a fragment", []string{
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"1"}},{"index":0,"id":"b","function":{"name":"g","arguments":"2"}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"3"}}]}}]`,
		}, []call{{"a", "f", "1"}, {"b", "g", "23"}}},
		{"vLLM: the next call at index 0 with an id, its fragments with id \"\"", []string{
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"chatcmpl-tool-c9","type":"function","function":{"name":"f","arguments":""}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"","type":"function","function":{"arguments":"{}"}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"chatcmpl-tool-Hf","type":"function","function":{"name":"g","arguments":""}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"","type":"function","function":{"arguments":"[]"}}]}}]`,
		}, []call{{"chatcmpl-tool-c9", "f", "{}"}, {"chatcmpl-tool-Hf", "g", "[]"}}},
		{"SGLang: every call at index 0, its id on every fragment", []string{
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"0","type":"function","function":{"name":"f","arguments":""}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"0","type":"function","function":{"arguments":"{}"}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"1","type":"function","function":{"name":"g","arguments":""}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"1","type":"function","function":{"arguments":"[]"}}]}}]`,
		}, []call{{"0", "f", "{}"}, {"1", "g", "[]"}}},
		{"Poolside: the id changes after the first delta", []string{
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_A","type":"function","function":{"name":"get_weather","arguments":""}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_B","function":{"arguments":"{\"city\":"}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_B","function":{"arguments":"\"Paris\"}"}}]}}]`,
		}, []call{{"call_B", "get_weather", `{"city":"Paris"}`}}},
		{"interleaved calls at index 0, each id on every delta", []string{
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"A","function":{"name":"f","arguments":"{"}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"B","function":{"name":"g","arguments":"["}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"A","function":{"arguments":"}"}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"B","function":{"arguments":"]"}}]}}]`,
		}, []call{{"A", "f", "{}"}, {"B", "g", "[]"}}},
		{"NIM: the name with every delta", []string{
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"read_file","arguments":""}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"type":"function","function":{"name":"read_file","arguments":"{\"p\":"}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"read_file","arguments":"1}"}}]}}]`,
		}, []call{{"a", "read_file", `{"p":1}`}}},
		{"a lone call at index -1", []string{
			`[{"index":0,"delta":{"tool_calls":[{"index":-1,"id":"a","function":{"name":"f","arguments":"{"}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":-1,"function":{"name":"f","arguments":"}"}}]}}]`,
		}, []call{{"a", "f", "{}"}}},
		{"Bedrock relayed: the first call at index 1", []string{
			`[{"index":0,"delta":{"content":"Let me look.","tool_calls":[{"index":1,"id":"tooluse_a","type":"function","function":{"name":"sql","arguments":""}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"q\":1}"}}]}}]`,
		}, []call{{"tooluse_a", "sql", `{"q":1}`}}},
		{"LibreChat agents: the id under one index, the arguments under another", []string{
			`[{"index":0,"delta":{"tool_calls":[{"index":2,"id":"call_x","type":"function","function":{"name":"get_time","arguments":""}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"tz\":"}}]}}]`,
			`[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"Madrid\"}"}}]}}]`,
		}, []call{{"call_x", "get_time", `{"tz":"Madrid"}`}}},
		{"a choice of its own for each", []string{
			`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"x"}}]}},{"index":1,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"f","arguments":"y"}}]}}]`,
		}, []call{{"a", "f", "x"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var slots ToolSlots
			var acc openai.ChatCompletionAccumulator
			for _, choices := range tc.chunks {
				var c openai.ChatCompletionChunk
				if err := json.Unmarshal([]byte(`{"id":"x","object":"chat.completion.chunk","model":"m","choices":`+choices+`}`), &c); err != nil {
					t.Fatal(err)
				}
				orig := c
				origCalls := append([]openai.ChatCompletionChunkChoiceDeltaToolCall(nil), c.Choices[0].Delta.ToolCalls...)
				add, ok := slots.Rewrite(&c)
				if !ok || !acc.AddChunk(*add) {
					t.Fatalf("the accumulator refused %s", choices)
				}
				if !reflect.DeepEqual(c, orig) || !reflect.DeepEqual(c.Choices[0].Delta.ToolCalls, origCalls) {
					t.Errorf("the caller's chunk changed: %+v", c.Choices[0].Delta.ToolCalls)
				}
			}
			var got []call
			for _, tcall := range acc.Choices[0].Message.ToolCalls {
				got = append(got, call{tcall.ID, tcall.Function.Name, tcall.Function.Arguments})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("accumulated %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestToolSlotsBound: a server that starts a new call with every delta
// is refused at the MaxToolCalls-th, its memory bounded.
func TestToolSlotsBound(t *testing.T) {
	var slots ToolSlots
	for i := range MaxToolCalls + 1 {
		var c openai.ChatCompletionChunk
		if err := json.Unmarshal([]byte(fmt.Sprintf(`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c%d","function":{"name":"f"}}]}}]}`, i)), &c); err != nil {
			t.Fatal(err)
		}
		if _, ok := slots.Rewrite(&c); ok != (i < MaxToolCalls) {
			t.Fatalf("call %d: accepted %v, want %v", i, ok, i < MaxToolCalls)
		}
	}
}
