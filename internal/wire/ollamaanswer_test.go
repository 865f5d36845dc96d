package wire

import "testing"

func TestOllamaAnswer(t *testing.T) {
	for start, want := range map[string]bool{
		`{"id":"cmpl-412","object":"text_completion","created":1788170400,"choices":[{"text":"   ","index":0,"finish_reason":null}],"model":"qwen2.5-coder:1.5b","system_fingerprint":"fp_ollama"}`: true,  // a stream's event
		`{"id":"cmpl-413","object":"text_completion","created":1788170401,"model":"m","system_fingerprint":"fp_ollama","choices":[{"text":"c","index":0,"finish_reason":"length"}]`:                 true,  // whole
		`{"id":"chatcmpl-412","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp_ollama","choices":[]}`:                                                              false, // a chat chunk
		`{"id":"cmpl-3a9f0c2b8e7d4a1f9c6b5e4d3a2f1e0d","object":"text_completion","created":1,"model":"m","choices":[]}`:                                                                            false, // vLLM
		`{"id":"cmpl-412","object":"text_completion","created":1,"model":"m","system_fingerprint":"b6000-abc","choices":[]}`:                                                                        false, // another fingerprint
	} {
		if got := OllamaAnswer([]byte(start)); got != want {
			t.Errorf("OllamaAnswer(%s) = %v, want %v", start, got, want)
		}
		for name, by := range map[string]func([]byte) string{"StreamEchoDropper": StreamEchoDropper, "WholeEchoDropper": WholeEchoDropper} {
			if got := by([]byte(start)) == Ollama; got != want {
				t.Errorf("%s(%s) = Ollama %v, want %v", name, start, got, want)
			}
		}
		if by := SuffixDropper([]byte(start)); by == Ollama {
			t.Errorf("SuffixDropper(%s) = Ollama, want another: it gives the suffix to the model", start)
		}
	}
}
