package wire

import "testing"

func TestXinferenceAnswer(t *testing.T) {
	for start, want := range map[string]bool{
		`{"id": "6f1e2a44-86b1-11f1-9c3e-0242ac110002", "object": "text_completion", "created": 1788170400, "model": "qwen2.5-coder-instruct", "choices": [{"text": "(a", "index": 0, "logprobs": null, "finish_reason": null}]}`: true,  // a stream's event
		`{"id":"9b4d6e21-86b2-11f1-9c3e-0242ac110002","object":"text_completion","created":1788170401,"model":"m","choices":[{"text":"c","index":0,"logprobs":null,"finish_reason":"length"}]`:                                    true,  // whole
		`{"id": "cmpl-7d2e9b41-5c3a-4f8e-b6d1-0a9c4e2f8b53", "object": "text_completion", "created": 1, "model": "m", "choices": [{"text": "c", "index": 0}]}`:                                                                    false, // llama-cpp-python
		`{"id": "7d2e9b41-5c3a-4f8e-b6d1-0a9c4e2f8b53", "object": "text_completion", "created": 1, "model": "m", "choices": []}`:                                                                                                  false, // a uuid4
		`{"created":1796512474,"object":"text_completion","id":"6f1e2a44-86b1-11f1-9c3e-0242ac110002","model":"tiny","choices":[]}`:                                                                                               false, // LocalAI's order
		`{"id": "6f1e2a44-86b1-11f1-9c3e-0242ac110002", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": []}`:                                                                                            false, // a chat chunk
	} {
		if got := XinferenceAnswer([]byte(start)); got != want {
			t.Errorf("XinferenceAnswer(%s) = %v, want %v", start, got, want)
		}
		for name, by := range map[string]func([]byte) string{"SuffixDropper": SuffixDropper, "StreamEchoDropper": StreamEchoDropper, "WholeEchoDropper": WholeEchoDropper} {
			if got := by([]byte(start)) == Xinference; got != want {
				t.Errorf("%s(%s) = Xinference %v, want %v", name, start, got, want)
			}
		}
	}
}
