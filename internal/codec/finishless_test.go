package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestFinishless: the chunks of a server of finishless finish "stop" at
// [DONE] once they had output, "tool_calls" after a tool call; a stream
// with a finish reason, without output, or with a chunk in another shape
// does not. Nexa SDK's chunks, written from openai-go's zero value,
// Kong's chunks of Anthropic's events, Foundry Local's chunks before 1.0.0,
// Snowflake Cortex's of a Claude answer and one-api's of a Gemini answer
// finish at any [DONE]; vllm-mlx 0.4.0's only after the close-out chunk
// (an empty delta, finish_reason null, the usage) that a natural stop
// sends and a failure does not;
// llama-server's
// chunks relayed by cortex.cpp without the last one only at a [DONE] with
// no line break (AtBareDone), and only with a build as their fingerprint.
func TestFinishless(t *testing.T) {
	const (
		zeroText    = `{"id":"","choices":[{"delta":{"content":"Hi","role":"assistant"},"finish_reason":"","index":0}],"created":0,"model":"","object":"chat.completion.chunk","service_tier":"","system_fingerprint":""}`
		zeroUsage   = `{"id":"","choices":[],"created":0,"model":"","object":"chat.completion.chunk","service_tier":"","system_fingerprint":"","usage":{"completion_tokens":1,"prompt_tokens":3,"total_tokens":4}}`
		kongRole    = `{"choices":[{"delta":{"content":"","role":"assistant"},"index":0,"logprobs":null}],"id":"msg_01a","model":"claude","object":"chat.completion.chunk","system_fingerprint":null}`
		kongText    = `{"choices":[{"delta":{"content":"Hi"},"index":0,"finish_reason":null,"logprobs":null}],"id":"msg_01a","model":"claude","object":"chat.completion.chunk"}`
		snowText    = `{"choices":[{"delta":{"content":"4","refusal":"","role":"assistant","tool_calls":null},"index":0,"logprobs":{"content":null,"refusal":null}}],"created":0,"id":"","model":"claude-sonnet-4-6","object":"chat.completion.chunk","service_tier":"","system_fingerprint":""}`
		snowUsage   = `{"choices":[],"created":0,"id":"","model":"claude-sonnet-4-6","object":"chat.completion.chunk","service_tier":"","system_fingerprint":"","usage":{"completion_tokens":5,"prompt_tokens":22,"total_tokens":27}}`
		llamaRole   = `{"choices":[{"delta":{"role":"assistant"},"finish_reason":null,"index":0}],"created":1,"id":"chatcmpl-a1","model":"m","object":"chat.completion.chunk"}`
		llamaText   = `{"choices":[{"delta":{"content":"Hi"},"finish_reason":null,"index":0}],"created":1,"id":"chatcmpl-a1","model":"m","object":"chat.completion.chunk","system_fingerprint":"b4932-1a2b3c4d"}`
		llamaCall   = `{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":null,"index":0}],"created":1,"id":"chatcmpl-a1","model":"m","object":"chat.completion.chunk","system_fingerprint":"b5478-9f8e7d6c"}`
		foundryText = `{"model":"q","choices":[{"delta":{"role":"assistant","content":"Hi","tool_calls":[]},"message":{"role":"assistant","content":"Hi","tool_calls":[]},"index":0}],"created":1,"CreatedAt":"2025-11-08T14:34:36+00:00","id":"chat.id.1","IsDelta":false,"Successful":true,"HttpStatusCode":0,"object":"chat.completion.chunk"}`
		gemText     = `{"id":"chatcmpl-9f1c2b3a4d5e6f708192a3b4c5d6e7f8","object":"chat.completion.chunk","created":1,"model":"gemini","choices":[{"index":0,"delta":{"content":"Hi"}}]}`
		mlxRole     = `{"id":"chatcmpl-4e9b1c7a","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}],"usage":null}`
		mlxText     = `{"id":"chatcmpl-4e9b1c7a","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}],"usage":null}`
		mlxClose    = `{"id":"chatcmpl-4e9b1c7a","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":null}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`
		mlxUsage    = `{"id":"chatcmpl-4e9b1c7a","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`
		llamaFinish = `{"choices":[{"delta":{},"finish_reason":"length","index":0}],"created":1,"id":"chatcmpl-a1","model":"m","object":"chat.completion.chunk","system_fingerprint":"b4932-1a2b3c4d","usage":{"completion_tokens":1,"prompt_tokens":3,"total_tokens":4}}`
	)
	for _, tt := range []struct {
		name   string
		chunks []string
		want   string // the finish given, "" for none
		bare   bool   // the [DONE] has no line break
	}{
		{"Nexa: zeroText chunks", []string{zeroText, zeroUsage}, "stop", false},
		{"Nexa: zeroUsage alone", []string{zeroUsage}, "", false},
		{"Nexa: a tool call", []string{`{"id":"","choices":[{"delta":{"content":"","role":"","tool_calls":[{"index":0,"id":"call_1","function":{"arguments":"{}","name":"f"},"type":""}]},"finish_reason":"","index":0}],"created":0,"model":"","object":"chat.completion.chunk","service_tier":""}`, zeroUsage}, "tool_calls", false},
		{"Nexa: an id", []string{`{"id":"chatcmpl-1","choices":[{"delta":{"content":"Hi"},"finish_reason":"","index":0}],"created":0,"model":"","object":"chat.completion.chunk","service_tier":""}`}, "", false},
		{"Nexa: service_tier null", []string{`{"id":"","choices":[{"delta":{"content":"Hi"},"finish_reason":null,"index":0}],"created":0,"model":"","object":"chat.completion.chunk","service_tier":null}`}, "", false},
		{"Nexa: finished", []string{zeroText, `{"id":"","choices":[{"delta":{},"finish_reason":"length","index":0}],"created":0,"model":"","object":"chat.completion.chunk","service_tier":""}`}, "", false},
		{"Nexa: a zeroText chunk after another", []string{`{"id":"x","choices":[{"delta":{"content":"Hi"},"index":0}],"object":"chat.completion.chunk"}`, zeroText}, "", false},
		{"Kong: kongRole and kongText", []string{kongRole, kongText}, "stop", false},
		{"Kong: the kongRole alone", []string{kongRole}, "", false},
		{"Kong: finished", []string{kongRole, kongText, `{"choices":[{"delta":{},"index":0,"finish_reason":"stop"}],"id":"msg_01a","model":"claude","object":"chat.completion.chunk"}`}, "", false},
		{"Kong: a created member", []string{kongRole, `{"choices":[{"delta":{"content":"Hi"},"index":0,"finish_reason":null}],"id":"msg_01a","created":1,"model":"claude","object":"chat.completion.chunk"}`}, "", false},
		{"Kong: another id", []string{`{"choices":[{"delta":{"content":"Hi"},"index":0,"finish_reason":null}],"id":"chatcmpl-1","model":"claude","object":"chat.completion.chunk"}`}, "", false},
		{"Kong: usage", []string{kongRole, `{"choices":[{"delta":{"content":"Hi"},"index":0,"finish_reason":null}],"id":"msg_01a","model":"claude","object":"chat.completion.chunk","usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`}, "", false},
		{"Foundry Local: foundryText", []string{foundryText, foundryText}, "stop", false},
		{"Foundry Local: finished", []string{foundryText, `{"model":"q","choices":[{"delta":{"role":"assistant","content":"","tool_calls":[]},"message":{"role":"assistant","content":"","tool_calls":[]},"index":0,"finish_reason":"stop"}],"created":1,"id":"chat.id.1","IsDelta":false,"Successful":true,"HttpStatusCode":0,"object":"chat.completion.chunk"}`}, "", false},
		{"Foundry Local: no message", []string{`{"model":"q","choices":[{"delta":{"content":"Hi"},"index":0}],"created":1,"id":"chat.id.1","IsDelta":false,"Successful":true,"HttpStatusCode":0,"object":"chat.completion.chunk"}`}, "", false},
		{"Foundry Local: OpenAI's members alone", []string{`{"model":"q","choices":[{"delta":{"content":"Hi"},"message":{"content":"Hi"},"index":0}],"created":1,"id":"chat.id.1","object":"chat.completion.chunk"}`}, "", false},
		{"one-api Gemini: gemText chunks", []string{gemText, gemText, `{"id":"chatcmpl-0123456789abcdef0123456789abcdef","object":"chat.completion.chunk","created":1,"model":"gemini","choices":[{"index":0,"delta":{"content":""}}]}`}, "stop", false},
		{"one-api Gemini: finished", []string{gemText, `{"id":"chatcmpl-0123456789abcdef0123456789abcdef","object":"chat.completion.chunk","created":1,"model":"gemini","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`}, "", false},
		{"one-api Gemini: finish_reason null", []string{`{"id":"chatcmpl-0123456789abcdef0123456789abcdef","object":"chat.completion.chunk","created":1,"model":"gemini","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}`}, "", false},
		{"vllm-mlx 0.4.0: mlxText, mlxClose and mlxUsage", []string{mlxRole, mlxText, mlxClose, mlxUsage}, "stop", false},
		{"vllm-mlx 0.4.0: no close-out (a failure)", []string{mlxRole, mlxText}, "", false},
		{"vllm-mlx 0.4.0: the usage chunk without a close-out", []string{mlxRole, mlxText, mlxUsage}, "", false},
		{"vllm-mlx 0.4.0: finished", []string{mlxRole, mlxText, `{"id":"chatcmpl-4e9b1c7a","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`, mlxUsage}, "", false},
		{"vllm-mlx 0.4.0: logprobs", []string{mlxRole, `{"id":"chatcmpl-4e9b1c7a","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}],"usage":null}`, mlxClose}, "", false},
		{"vllm-mlx 0.4.0: a longer id", []string{`{"id":"chatcmpl-4e9b1c7a0","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}],"usage":null}`, mlxClose}, "", false},
		{"one-api Gemini: another model", []string{`{"id":"chatcmpl-0123456789abcdef0123456789abcdef","object":"chat.completion.chunk","created":1,"model":"gemini-2.0-flash","choices":[{"index":0,"delta":{"content":"Hi"}}]}`}, "", false},
		{"one-api Gemini: a UUID with dashes", []string{`{"id":"chatcmpl-01234567-89ab-cdef-0123-456789abcdef","object":"chat.completion.chunk","created":1,"model":"gemini","choices":[{"index":0,"delta":{"content":"Hi"}}]}`}, "", false},
		{"one-api Gemini: usage", []string{gemText, `{"id":"chatcmpl-0123456789abcdef0123456789abcdef","object":"chat.completion.chunk","created":1,"model":"gemini","choices":[{"index":0,"delta":{"content":"Hi"}}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`}, "", false},
		{"Snowflake: snowText and snowUsage", []string{snowText, snowUsage}, "stop", false},
		{"Snowflake: snowUsage alone", []string{snowUsage}, "", false},
		{"Snowflake: a tool call", []string{`{"choices":[{"delta":{"content":"","refusal":"","role":"assistant","tool_calls":[{"index":0,"id":"toolu_bdrk_01","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"index":0,"logprobs":{"content":null,"refusal":null}}],"created":0,"id":"","model":"claude-sonnet-4-6","object":"chat.completion.chunk","service_tier":"","system_fingerprint":""}`, snowUsage}, "tool_calls", false},
		{"Snowflake: finished", []string{snowText, `{"choices":[{"delta":{},"finish_reason":"length","index":0}],"created":0,"id":"","model":"claude-sonnet-4-6","object":"chat.completion.chunk","service_tier":"","system_fingerprint":""}`}, "", false},
		{"Snowflake: finish_reason \"\"", []string{`{"choices":[{"delta":{"content":"4"},"finish_reason":"","index":0}],"created":0,"id":"","model":"llama3.1-8b","object":"chat.completion.chunk","service_tier":"","system_fingerprint":""}`}, "stop", false},
		{"Snowflake: finish_reason null", []string{`{"choices":[{"delta":{"content":"4"},"finish_reason":null,"index":0}],"created":0,"id":"","model":"claude-sonnet-4-6","object":"chat.completion.chunk","service_tier":"","system_fingerprint":""}`}, "", false},
		{"Snowflake: an id", []string{`{"choices":[{"delta":{"content":"4"},"index":0}],"created":0,"id":"chatcmpl-1","model":"claude-sonnet-4-6","object":"chat.completion.chunk","service_tier":"","system_fingerprint":""}`}, "", false},
		{"Snowflake: a fingerprint", []string{`{"choices":[{"delta":{"content":"4"},"index":0}],"created":0,"id":"","model":"claude-sonnet-4-6","object":"chat.completion.chunk","service_tier":"","system_fingerprint":"fp_1"}`}, "", false},
		{"cortex: llamaRole and llamaText", []string{llamaRole, llamaText}, "stop", true},
		{"cortex: a tool llamaCall", []string{llamaRole, llamaCall}, "tool_calls", true},
		{"cortex: the llamaRole alone", []string{llamaRole}, "", true},
		{"cortex: finished", []string{llamaRole, llamaText, llamaFinish}, "", true},
		{"cortex: no build", []string{llamaRole, `{"choices":[{"delta":{"content":"Hi"},"finish_reason":null,"index":0}],"created":1,"id":"chatcmpl-a1","model":"m","object":"chat.completion.chunk"}`}, "", true},
		{"cortex: another fingerprint", []string{llamaRole, `{"choices":[{"delta":{"content":"Hi"},"finish_reason":null,"index":0}],"created":1,"id":"chatcmpl-a1","model":"m","object":"chat.completion.chunk","system_fingerprint":"fp_ollama"}`}, "", true},
		{"cortex: another id", []string{`{"choices":[{"delta":{"content":"Hi"},"finish_reason":null,"index":0}],"created":1,"id":"koboldcpp","model":"m","object":"chat.completion.chunk","system_fingerprint":"b4932-1a2b3c4d"}`}, "", true},
	} {
		s := DecoderFor(Chat(openai.ChatCompletionNewParams{}, true))
		for _, c := range tt.chunks {
			if _, err := s.Decode([]byte(c)); err != nil {
				t.Fatalf("%s: Decode(%s) = %v", tt.name, c, err)
			}
		}
		bare, _ := s.(BareDoneFinisher).AtBareDone()
		done, _ := s.(DoneFinisher).AtDone()
		got, other := done, bare
		if tt.bare {
			got, other = bare, done
		}
		if f := chunkFinish(got); f != tt.want {
			t.Errorf("%s: finish = %q, want %q", tt.name, f, tt.want)
		}
		if f := chunkFinish(other); f != "" {
			t.Errorf("%s: finish at the other [DONE] = %q, want none", tt.name, f)
		}
	}
}

// chunkFinish returns the finish reason of ev's first choice, "" for none.
func chunkFinish(ev Event) string {
	if ev.Chunk == nil || len(ev.Chunk.Choices) == 0 {
		return ""
	}
	return string(ev.Chunk.Choices[0].FinishReason)
}
