package codec

import "testing"

// TestParseLlamaCpp: llama.cpp's own format is told by how its objects
// begin (content first in 2024, the index first since) and by holding no
// choices and no error; a chat or completion chunk, an error object and
// an object of neither content nor stop are not.
func TestParseLlamaCpp(t *testing.T) {
	for _, tt := range []struct {
		data string
		ok   bool
	}{
		{`{"content":"a","stop":false,"id_slot":0,"multimodal":false,"index":0}`, true},
		{`{"index":0,"content":" Cpp","tokens":[44219],"stop":false,"id_slot":-1,"tokens_predicted":1,"tokens_evaluated":13}`, true},
		{`{"content":"","id_slot":0,"stop":true,"tokens_predicted":3,"tokens_evaluated":2,"stopped_limit":true}`, true},
		{`{"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":"a"}]}`, false},
		{`{"content":"a","choices":[]}`, false},
		{`{"index":0,"error":{"code":500,"message":"x"}}`, false},
		{`{"index":0}`, false},
		{` {"content":"a"}`, false},
		{`{"content":`, false},
	} {
		if _, ok := ParseLlamaCpp([]byte(tt.data)); ok != tt.ok {
			t.Errorf("ParseLlamaCpp(%s) = %v, want %v", tt.data, ok, tt.ok)
		}
	}
}

// TestLlamaCppCompletion: an event's content is the text; the last event
// gives the finish reason ("length" at the token limit, by stop_type or
// by the stopped_limit of 2024's builds) and the usage.
func TestLlamaCppCompletion(t *testing.T) {
	for _, tt := range []struct{ data, want string }{
		{`{"content":"a","stop":false}`, `{"id":"i","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"a","finish_reason":null,"logprobs":null}]}`},
		{`{"content":"","stop":true,"stopped_limit":true,"tokens_predicted":3,"tokens_evaluated":2}`,
			`{"id":"i","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"","finish_reason":"length","logprobs":null}],"usage":{"prompt_tokens":2,"completion_tokens":3,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":0}}}`},
		{`{"index":0,"content":"b","stop":true,"stop_type":"eos","tokens_predicted":1,"tokens_evaluated":4,"timings":{"cache_n":9}}`,
			`{"id":"i","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"b","finish_reason":"stop","logprobs":null}],"usage":{"prompt_tokens":4,"completion_tokens":1,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":4}}}`},
	} {
		ev, ok := ParseLlamaCpp([]byte(tt.data))
		if got := string(ev.Completion("i", "m", 1, false)); !ok || got != tt.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tt.data, got, ok, tt.want)
		}
	}
}
