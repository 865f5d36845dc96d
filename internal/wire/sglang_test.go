package wire

import "testing"

func TestSGLangAnswer(t *testing.T) {
	for _, tt := range []struct {
		start string
		want  bool
	}{
		// SGLang's chunk and whole answer (protocol.py).
		{`{"id":"6f0d","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" a","logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null}`, true},
		{`{"id":"6f0d","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"a","logprobs":null,"finish_reason":"stop","matched_stop":151643}],"usage":{"prompt_tokens":7}}`, true},
		// vLLM's: stop_reason.
		{`{"id":"cmpl-3a9","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"def","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`, false},
		// A chat chunk, or the word in a completion's text.
		{`{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"a"},"matched_stop":null}]}`, false},
		{`{"id":"x","object":"text_completion","choices":[{"index":0,"text":"\"matched_stop\" is a field"}]}`, false},
	} {
		if got := SGLangAnswer([]byte(tt.start)); got != tt.want {
			t.Errorf("SGLangAnswer(%s) = %v, want %v", tt.start, got, tt.want)
		}
	}
}

func TestServerInfoTemplate(t *testing.T) {
	for _, tt := range []struct {
		body string
		want Template
	}{
		{`{"model_path":"qwen/qwen2.5-0.5b-instruct","chat_template":null,"completion_template":null,"version":"0.5.0"}`, TemplateMissing},
		{`{"model_path":"Qwen/Qwen2.5-Coder-7B","completion_template":"qwen_coder"}`, TemplateSet},
		{`{"model_path":"m","completion_template":"/etc/fim.json"}`, TemplateSet},
		// Not SGLang's, or nothing said.
		{`{"model_path":"m"}`, TemplateUnknown},
		{`{"completion_template":null}`, TemplateUnknown},
		{`{"status":"ready","backend":"TripoSplat"}`, TemplateUnknown},
		{`{"model_path":"m","completion_template":""}`, TemplateUnknown},
		{`{"model_path":"m","completion_template":7}`, TemplateUnknown},
		{`<html>not found</html>`, TemplateUnknown},
		{``, TemplateUnknown},
	} {
		if got := ServerInfoTemplate([]byte(tt.body)); got != tt.want {
			t.Errorf("ServerInfoTemplate(%s) = %v, want %v", tt.body, got, tt.want)
		}
	}
}

// BenchmarkSGLangAnswer is what the first event of a stream answering a
// request with a suffix costs every server: SGLang's check of its shape.
func BenchmarkSGLangAnswer(b *testing.B) {
	for _, bm := range []struct{ name, start string }{
		{"sglang", `{"id":"6f0d2c9a41b84e57a3c1d8e2b7f90a64","object":"text_completion","created":1796529600,"model":"qwen/qwen2.5-0.5b-instruct","choices":[{"index":0,"text":"    ","logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null}`},
		{"vllm", `{"id":"cmpl-3a9","object":"text_completion","created":1764800000,"model":"Qwen/Qwen2.5-Coder-1.5B","choices":[{"index":0,"text":"def","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`},
	} {
		b.Run(bm.name, func(b *testing.B) {
			start := []byte(bm.start)
			b.ReportAllocs()
			for b.Loop() {
				SGLangAnswer(start)
			}
		})
	}
}
