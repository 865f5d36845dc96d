package wire

import "testing"

func TestLlamaCppPythonAnswer(t *testing.T) {
	for start, want := range map[string]bool{
		`{"id": "cmpl-7d2e9b41-5c3a-4f8e-b6d1-0a9c4e2f8b53", "object": "text_completion", "created": 1788170400, "model": "qwen2.5-coder-1.5b", "choices": [{"text": "\n", "index": 0, "logprobs": null, "finish_reason": null}]}`: true,  // a stream's event
		`{"id":"cmpl-2b8f6a17-e94d-4c05-a3b2-71d5c8e0f926","object":"text_completion","created":1788170401,"model":"m","choices":[{"text":"c","index":0,"logprobs":null,"finish_reason":"length"}]`:                                true,  // whole
		`{"id": "6f1e2a44-86b1-11f1-9c3e-0242ac110002", "object": "text_completion", "created": 1, "model": "m", "choices": [{"text": "c", "index": 0}]}`:                                                                          false, // Xinference
		`{"id":"cmpl-3a9f0c2b8e7d4a1f9c6b5e4d3a2f1e0d","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"c"}]}`:                                                                                     false, // vLLM
		`{"id":"cmpl-8kQmDx3VnR7bYwTz2HfLcP","object":"text_completion","model":"m","choices":[{"index":0,"text":"c"}]}`:                                                                                                           false, // FastChat
		`{"id": "cmpl-7d2e9b41-5c3a-4f8e-b6d1-0a9c4e2f8b53", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, "delta": {}}]}`:                                                               false, // a chat chunk
	} {
		if got := LlamaCppPythonAnswer([]byte(start)); got != want {
			t.Errorf("LlamaCppPythonAnswer(%s) = %v, want %v", start, got, want)
		}
		for name, by := range map[string]func([]byte) string{"SuffixDropper": SuffixDropper, "StreamEchoDropper": StreamEchoDropper} {
			if got := by([]byte(start)) == LlamaCppPython; got != want {
				t.Errorf("%s(%s) = LlamaCppPython %v, want %v", name, start, got, want)
			}
		}
		if by := WholeEchoDropper([]byte(start)); by == LlamaCppPython {
			t.Errorf("WholeEchoDropper(%s) = %s, want another: its whole answer holds the echo", start, by)
		}
	}
}
