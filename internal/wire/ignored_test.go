package wire

import (
	"net/http"
	"net/url"
	"testing"
)

func TestDroppedField(t *testing.T) {
	for _, tt := range []struct {
		body, want string
	}{
		{`{"model":"m","prompt":"def f(x):\n","suffix":"\n    return x\n"}`, "suffix"},
		{`{"model":"m","prompt":"p","suffix":""}`, ""},
		{`{"model":"m","prompt":"p","echo":true}`, "echo"},
		{`{"model":"m","prompt":"p","echo":false}`, ""},
		{`{"model":"m","prompt":"the word \"suffix\" in a prompt"}`, ""},
		{`{"model":"m","prompt":"p","suffix":`, ""}, // not JSON: the server answers for it
		{`{"model":"m","prompt":"p"}`, ""},
	} {
		if got := DroppedField([]byte(tt.body)); got != tt.want {
			t.Errorf("DroppedField(%s) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestIsCompletions(t *testing.T) {
	for path, want := range map[string]bool{
		"/v1/completions": true, "/completions/": true, "/v1/chat/completions": false, "/v1/responses": false, "/infill": false,
	} {
		if got := IsCompletions(&http.Request{URL: &url.URL{Path: path}}); got != want {
			t.Errorf("IsCompletions(%s) = %v, want %v", path, got, want)
		}
	}
}

func TestFieldDropper(t *testing.T) {
	for server, want := range map[string]string{
		"llama.cpp": LlamaCpp, "llama.cpp/b6652": LlamaCpp,
		"ConcedoLlamaForKoboldServer": KoboldCpp, "ConcedoLlamaForKoboldServer ": KoboldCpp, // its 503s add a space
		"llama-box/v0.0.154": LlamaBox, "llama-boxer": "",
		"uvicorn": "", "": "",
	} {
		res := &http.Response{Header: http.Header{"Server": {server}}}
		if got := FieldDropper(res); got != want {
			t.Errorf("FieldDropper(Server: %q) = %q, want %q", server, got, want)
		}
	}
	res := &http.Response{Header: http.Header{"X-Cpa-Trace-Id": {"20261206032502-4bf9e6387c924b23-afd84083"}}}
	if got := FieldDropper(res); got != CLIProxyAPI {
		t.Errorf("FieldDropper(X-Cpa-Trace-Id) = %q, want %q", got, CLIProxyAPI)
	}
	if got := FieldDropper(nil); got != "" {
		t.Errorf("FieldDropper(nil) = %q, want none", got)
	}
}

func TestKoboldCppAnswer(t *testing.T) {
	for start, want := range map[string]bool{
		`{"id": "koboldcpp", "object": "text_completion", "created": 1796526987, "model": "koboldcpp/tiny"`: true, // a stream's event
		`{"id": "cmpl-A1", "object": "text_completion", "created": 1796526987, "model": "koboldcpp/tiny"`:   true, // whole
		`{"id": "chatcmpl-A1", "object": "chat.completion", "created": 1796526987`:                          false,
		`{"id":"cmpl-A1","object":"text_completion"}`:                                                       false, // not Python's spacing
		`{"id": "cmpl-5c8f0b2e9d1a", "object": "text_completion"}`:                                          false,
	} {
		if got := KoboldCppAnswer([]byte(start)); got != want {
			t.Errorf("KoboldCppAnswer(%s) = %v, want %v", start, got, want)
		}
		if got := SuffixDropper([]byte(start)) == KoboldCpp; got != want {
			t.Errorf("SuffixDropper(%s) = KoboldCpp %v, want %v", start, got, want)
		}
	}
}

func TestMistralRsAnswer(t *testing.T) {
	for start, want := range map[string]bool{
		`{"id":"12","choices":[{"text":"c","index":0,"logprobs":null,"finish_reason":null}],"created":1767200000,"model":"tiny","system_fingerprint":"local","object":"text_completion"}`: true, // a stream's event
		`{"id":"13","choices":[{"finish_reason":"length","index":0,"text":"c","logprobs":null}],"created":1767200001,"model":"tiny","system_fingerprint":"local"`:                         true, // whole
		`{"id":"13","choices":[{"finish_reason":"length","index":0,"text":"c"}],"system_fingerprint":"fp_44709d6fcb"}`:                                                                    false,
		`{"id":"cmpl-13","choices":[],"system_fingerprint":"local"}`:                                                                                                                      false,
	} {
		if got := MistralRsAnswer([]byte(start)); got != want {
			t.Errorf("MistralRsAnswer(%s) = %v, want %v", start, got, want)
		}
		if got := SuffixDropper([]byte(start)) == MistralRs; got != want {
			t.Errorf("SuffixDropper(%s) = MistralRs %v, want %v", start, got, want)
		}
		if got := StreamEchoDropper([]byte(start)) == MistralRs; got != want {
			t.Errorf("StreamEchoDropper(%s) = MistralRs %v, want %v", start, got, want)
		}
	}
	// llama.cpp's server's chunk: its echo is told by its headers.
	if by := StreamEchoDropper([]byte(`{"choices":[{"text":"c","index":0}],"system_fingerprint":"b7100-0a5b1c2d","object":"text_completion"}`)); by != "" {
		t.Errorf("StreamEchoDropper(llama.cpp's chunk) = %q, want none", by)
	}
}

func TestLMDeployAnswer(t *testing.T) {
	for start, want := range map[string]bool{
		`{"id": "-1", "object": "text_completion", "created": 1788170400, "model": "tiny", "choices": [{"index": 0, "text": "c"}], "usage": null}`:              true,  // a stream's event
		`{"id":"-1","object":"text_completion","created":1788170401,"model":"tiny","choices":[{"index":0,"text":"c","logprobs":null,"finish_reason":"length"}]`: true,  // whole
		`{"id": "7", "object": "text_completion", "created": 1788170400, "model": "tiny", "choices": []}`:                                                       true,  // before 0.11
		`{"id":"cmpl-3a9","object":"text_completion","created":1764800000,"model":"m","choices":[]}`:                                                            false, // vLLM
		`{"id": "koboldcpp", "object": "text_completion", "created": 1, "model": "m"}`:                                                                          false,
		`{"id":"12","choices":[{"text":"c","index":0}],"created":1767200000,"model":"tiny","system_fingerprint":"local","object":"text_completion"}`:            false, // mistral.rs
		`{"id": "-1", "object": "chat.completion.chunk", "created": 1788170400, "model": "tiny"}`:                                                               false, // a chat chunk
	} {
		if got := LMDeployAnswer([]byte(start)); got != want {
			t.Errorf("LMDeployAnswer(%s) = %v, want %v", start, got, want)
		}
		for name, by := range map[string]func([]byte) string{"SuffixDropper": SuffixDropper, "StreamEchoDropper": StreamEchoDropper, "WholeEchoDropper": WholeEchoDropper} {
			if got := by([]byte(start)) == LMDeploy; got != want {
				t.Errorf("%s(%s) = LMDeploy %v, want %v", name, start, got, want)
			}
		}
	}
}

func TestTextGenWebUIAnswer(t *testing.T) {
	for start, want := range map[string]bool{
		`{"id": "cmpl-1788170400123456789", "object": "text_completion", "created": 1788170400, "model": "Qwen2.5-Coder-1.5B-Q8_0.gguf", "system_fingerprint": null, "choices": []}`: true,  // a stream's event
		`{"id":"cmpl-1788170401234567890","object":"text_completion","created":1788170401,"model":"m","system_fingerprint":null,"choices":[]}`:                                       true,  // whole
		`{"id":"cmpl-123","object":"text_completion","created":1,"model":"m","system_fingerprint":"fp_ollama","choices":[]}`:                                                         false, // Ollama
		`{"id":"cmpl-3a9f0c2b8e7d4a1f9c6b5e4d3a2f1e0d","object":"text_completion","created":1,"model":"m","choices":[]}`:                                                             false, // vLLM
		`{"id": "cmpl-1788170400123456789", "object": "chat.completion.chunk", "created": 1788170400, "model": "m", "system_fingerprint": null}`:                                     false, // a chat chunk
	} {
		if got := TextGenWebUIAnswer([]byte(start)); got != want {
			t.Errorf("TextGenWebUIAnswer(%s) = %v, want %v", start, got, want)
		}
		if got := SuffixDropper([]byte(start)) == TextGen; got != want {
			t.Errorf("SuffixDropper(%s) = TextGen %v, want %v", start, got, want)
		}
	}
}

func TestTabbyAPIAnswer(t *testing.T) {
	for start, want := range map[string]bool{
		`{"id": "chatcmpl-4f1c9a0e7b2d4c6e8a1f3b5d7c9e0a2b", "object": "text_completion", "choices": [{"index": 0, "text": "c", "finish_reason": null}], "created": 1, "model_name": "m"}`: true,  // a stream's event
		`{"id":"cmpl-4f1c9a0e7b2d4c6e8a1f3b5d7c9e0a2b","choices":[{"index":0,"finish_reason":"length","eos_reason":null,"logprobs":null,"text":"c"}]`:                                      true,  // whole
		`{"id":"chatcmpl-3gmggEL0AWEfuhqfa1ZLixsrZMxJcPYx","object":"text_completion","created":1,"model":"m","choices":[]}`:                                                               false, // llama.cpp's, rebuilt by one-hub
		`{"choices":[{"text":"c","index":0}],"created":1,"id":"chatcmpl-4f1c9a0e7b2d4c6e8a1f3b5d7c9e0a2b","object":"text_completion"}`:                                                     false, // llama.cpp's own order
		`{"id":"cmpl-4f1c9a0e7b2d4c6e8a1f3b5d7c9e0a2b","object":"text_completion","created":1,"model":"m","choices":[]}`:                                                                   false, // vLLM
		`{"id": "chatcmpl-4f1c9a0e7b2d4c6e8a1f3b5d7c9e0a2b", "object": "chat.completion.chunk", "choices": []}`:                                                                            false, // a chat chunk
	} {
		if got := TabbyAPIAnswer([]byte(start)); got != want {
			t.Errorf("TabbyAPIAnswer(%s) = %v, want %v", start, got, want)
		}
		for name, by := range map[string]func([]byte) string{"SuffixDropper": SuffixDropper, "StreamEchoDropper": StreamEchoDropper, "WholeEchoDropper": WholeEchoDropper} {
			if got := by([]byte(start)) == TabbyAPI; got != want {
				t.Errorf("%s(%s) = TabbyAPI %v, want %v", name, start, got, want)
			}
		}
	}
}

func TestMLXLMAnswer(t *testing.T) {
	const fp = `"system_fingerprint": "0.29.1-0.30.0-macOS-15.6.1-arm64-arm-64bit-applegpu_g15s"`
	for start, want := range map[string]bool{
		`{"id": "cmpl-6f1e2d3c-4b5a-4978-8a69-5b4c3d2e1f00", ` + fp + `, "object": "text_completion", "model": "m", "created": 1, "choices": []}`: true,
		`{"id": "cmpl-6f1e2d3c-4b5a-4978-8a69-5b4c3d2e1f00", "object": "text_completion", "created": 1, "model": "m", "choices": []}`:             false, // llama-cpp-python
		`{"id": "chatcmpl-6f1e2d3c-4b5a-4978-8a69-5b4c3d2e1f00", ` + fp + `, "object": "chat.completion.chunk"}`:                                  false, // a chat chunk
	} {
		if got := MLXLMAnswer([]byte(start)); got != want {
			t.Errorf("MLXLMAnswer(%s) = %v, want %v", start, got, want)
		}
		for name, by := range map[string]func([]byte) string{"SuffixDropper": SuffixDropper, "StreamEchoDropper": StreamEchoDropper, "WholeEchoDropper": WholeEchoDropper} {
			if got := by([]byte(start)) == MLXLM; got != want {
				t.Errorf("%s(%s) = MLXLM %v, want %v", name, start, got, want)
			}
		}
	}
}

func TestVLLMMLXAnswer(t *testing.T) {
	for start, want := range map[string]bool{
		`{"id": "cmpl-1a2b3c4d", "object": "text_completion", "created": 1, "model": "m", "choices": []}`: true,  // a stream's event
		`{"id":"cmpl-1a2b3c4d","object":"text_completion","created":1,"model":"m","choices":[]}`:          true,  // whole
		`{"id":"cmpl-123","object":"text_completion","created":1,"model":"m"}`:                            false, // Ollama
		`{"id":"cmpl-3a9f0c2b8e7d4a1f9c6b5e4d3a2f1e0d","object":"text_completion","created":1}`:           false, // vLLM
		`{"id": "chatcmpl-1a2b3c4d", "object": "chat.completion.chunk", "created": 1}`:                    false, // a chat chunk
	} {
		if got := VLLMMLXAnswer([]byte(start)); got != want {
			t.Errorf("VLLMMLXAnswer(%s) = %v, want %v", start, got, want)
		}
		if got := SuffixDropper([]byte(start)) == VLLMMLX; got != want {
			t.Errorf("SuffixDropper(%s) = VLLMMLX %v, want %v", start, got, want)
		}
	}
}

func TestFastChatAnswer(t *testing.T) {
	for start, want := range map[string]bool{
		`{"id":"cmpl-8kQmDx3VnR7bYwTz2HfLcP","object":"text_completion","model":"m","choices":[]}`:             true,  // a stream's event: no created
		`{"id":"cmpl-Rf4sGt9aKmNz3pXwBq7cYe","object":"text_completion","created":1,"model":"m","choices":[]}`: true,  // whole
		`{"id":"cmpl-3a9f0c2b8e7d4a1f9c6b5e4d3a2f1e0d","object":"text_completion","created":1,"model":"m"}`:    false, // vLLM
		`{"id":"cmpl-chatcmpl-8kQmDx3VnR7bYwTz2HfLcP","object":"text_completion","created":1,"model":"m"}`:     false,
		`{"id":"cmpl-8kQmDx3VnR7bYwTz2HfLcP0","object":"text_completion","created":1,"model":"m"}`:             false, // 23 letters
		`{"id":"cmpl-8kQmDx3VnR7bYwTz2HfLc1","object":"text_completion","created":1,"model":"m"}`:              false, // 1 is not shortuuid's
		`{"id":"cmpl-8kQmDx3VnR7bYwTz2HfLc0","object":"text_completion","model":"m"}`:                          false, // nor 0
		`{"id":"chatcmpl-8kQmDx3VnR7bYwTz2HfLcP","object":"chat.completion.chunk","model":"m","choices":[]}`:   false, // a chat chunk
		`{"id": "cmpl-8kQmDx3VnR7bYwTz2HfLcP", "object": "text_completion", "created": 1, "model": "m"}`:       false, // spaced: not pydantic's
	} {
		if got := FastChatAnswer([]byte(start)); got != want {
			t.Errorf("FastChatAnswer(%s) = %v, want %v", start, got, want)
		}
		if got := SuffixDropper([]byte(start)) == FastChat; got != want {
			t.Errorf("SuffixDropper(%s) = FastChat %v, want %v", start, got, want)
		}
		if StreamEchoDropper([]byte(start)) == FastChat || WholeEchoDropper([]byte(start)) == FastChat {
			t.Errorf("an echo dropper says FastChat for %s, whose echo FastChat keeps", start)
		}
	}
}

func TestMAXAnswer(t *testing.T) {
	for start, want := range map[string]bool{
		`{"id":"9b3e7c2a5d104f68a1c2e3d4f5a6b7c8_0","created":1,"model":"m","choices":[]}`:                                                                                                          true,  // a stream's event
		`{"id":"9b3e7c2a5d104f68a1c2e3d4f5a6b7c8","choices":[{"finish_reason":"length","index":0,"logprobs":{"text_offset":null,"token_logprobs":[],"tokens":null,"top_logprobs":[]},"text":"c"}]}`: true,  // whole
		`{"id":"9b3e7c2a5d104f68a1c2e3d4f5a6b7c8","object":"text_completion","created":1,"model":"m"}`:                                                                                              false, // SGLang
		`{"id":"9b3e7c2a5d104f68a1c2e3d4f5a6b7c8","choices":[{"finish_reason":"length","index":0,"logprobs":null,"text":"c"}]}`:                                                                     false, // no MAX logprobs
		`{"id":"9b3e7c2a5d104f68a1c2e3d4f5a6b7c8_0","object":"text_completion","created":1}`:                                                                                                        false,
		`{"id":"9b3e7c2a5d104f68a1c2e3d4f5a6b7c8","choices":[{"delta":{"role":"assistant"},"index":0}],"created":1,"model":"m","object":"chat.completion.chunk"}`:                                   false, // a chat chunk
	} {
		if got := MAXAnswer([]byte(start)); got != want {
			t.Errorf("MAXAnswer(%s) = %v, want %v", start, got, want)
		}
		if got := SuffixDropper([]byte(start)) == MAX; got != want {
			t.Errorf("SuffixDropper(%s) = MAX %v, want %v", start, got, want)
		}
		if got := StreamEchoDropper([]byte(start)) == MAX; got != want {
			t.Errorf("StreamEchoDropper(%s) = MAX %v, want %v", start, got, want)
		}
	}
}

// TestTransformersServeAnswer: transformers serve's completion, a stream's
// text chunk or a whole answer, is told by its UUID id and its choice's
// members in openai-python's order without nulls; others' are not.
func TestTransformersServeAnswer(t *testing.T) {
	const id = `"id":"5c1e8a2f-3b4d-4e6f-9a7b-2c3d4e5f6a7b"`
	for start, want := range map[string]bool{
		`{` + id + `,"choices":[{"index":0,"text":"    c"}],"created":1,"model":"m@main","object":"text_completion"}`:                         true,  // a stream's chunk
		`{` + id + `,"choices":[{"finish_reason":"length","index":0,"text":"    c = a"}],"created":1,"model":"m","object":"text_completion"}`: true,  // whole
		`{` + id + `,"choices":[{"finish_reason":null,"index":0,"logprobs":null,"text":"c"}]}`:                                                false, // nulls written
		`{` + id + `,"object":"text_completion","created":1,"choices":[{"index":0,"text":"c"}]}`:                                              false,
		`{"id":"cmpl-5c1e8a2f-3b4d-4e6f-9a7b-2c3d4e5f6a7b","choices":[{"index":0,"text":"c"}]}`:                                               false, // mlx_lm-like prefix
		`{` + id + `,"choices":[{"delta":{"role":"assistant"},"index":0}],"created":1,"model":"m","object":"chat.completion.chunk"}`:          false, // a chat chunk
	} {
		if got := TransformersServeAnswer([]byte(start)); got != want {
			t.Errorf("TransformersServeAnswer(%s) = %v, want %v", start, got, want)
		}
		if got := SuffixDropper([]byte(start)) == TransformersServe; got != want {
			t.Errorf("SuffixDropper(%s) = TransformersServe %v, want %v", start, got, want)
		}
		if StreamEchoDropper([]byte(start)) != "" || WholeEchoDropper([]byte(start)) != "" {
			t.Errorf("an echo dropper names %s, whose server refuses an echo", start)
		}
	}
}

func TestEchoDropper(t *testing.T) {
	for server, want := range map[string]string{
		"llamafile/0.9.3":  Llamafile,
		"llama.cpp":        "", // told by FieldDropper, which drops the suffix too
		"uvicorn":          "",
		"llamafiler-proxy": "",
	} {
		res := &http.Response{Header: http.Header{"Server": {server}}}
		if got := EchoDropper(res); got != want {
			t.Errorf("EchoDropper(Server: %s) = %q, want %q", server, got, want)
		}
	}
	if got := EchoDropper(nil); got != "" {
		t.Errorf("EchoDropper(nil) = %q, want none", got)
	}
}

func TestLlamaCppAnswer(t *testing.T) {
	const id = `"id":"chatcmpl-3gmggEL0AWEfuhqfa1ZLixsrZMxJcPYx"`
	for start, want := range map[string]bool{
		`{"choices":[],"system_fingerprint":"b0-unknown","object":"text_completion",` + id + `}`:   true, // llama.cpp's own
		`{"choices":[],"system_fingerprint":"b7422-0a271d82b","object":"text_completion"}`:         true,
		`{` + id + `,"object":"text_completion","created":1,"model":"m","choices":[{"text":"x"}]}`: true,  // rebuilt by one-hub
		`{"id":"cmpl-5c8f0b2e9d1a4f6b8c3e2a1d0f9e8b7a","object":"text_completion"}`:                false, // vLLM, OpenAI
		`{"id":"5c8f0b2e9d1a4f6b8c3e2a1d0f9e8b7a","object":"text_completion"}`:                     false, // SGLang
		`{` + id + `,"object":"chat.completion"}`:                                                  false, // a chat answer
		`{"id":"chatcmpl-short","object":"text_completion"}`:                                       false,
		`{"system_fingerprint":"fp_44added55e","object":"text_completion"}`:                        false,
	} {
		if got := LlamaCppAnswer([]byte(start)); got != want {
			t.Errorf("LlamaCppAnswer(%s) = %v, want %v", start, got, want)
		}
	}
}

func TestLocalAIAnswer(t *testing.T) {
	for start, want := range map[string]bool{
		`{"created":1796512474,"object":"text_completion","id":"6ab1c088-fd33-462c-b72f-5ed251e390c8","model":"tiny","choices":[]}`: true,
		`{"created":1796512474,"object":"chat.completion.chunk","id":"6ab1c088-fd33-462c-b72f-5ed251e390c8"}`:                       true, // a chat stream's event
		`{"created":1796512474,"object":"embedding","id":"6ab1c088-fd33-462c-b72f-5ed251e390c8"}`:                                   false,
		`{"id":"6ab1c088-fd33-462c-b72f-5ed251e390c8","object":"text_completion","created":1796512474}`:                             false, // another order: another server
		`{"created":1796512474,"object":"text_completion","id":"cmpl-6ab1c088fd33462cb72f5ed251e390c8"}`:                            false,
		`{"choices":[],"created":1796512474,"object":"text_completion","id":"6ab1c088-fd33-462c-b72f-5ed251e390c8"}`:                false,
	} {
		if got := LocalAIAnswer([]byte(start)); got != want {
			t.Errorf("LocalAIAnswer(%s) = %v, want %v", start, got, want)
		}
		for name, by := range map[string]func([]byte) string{"SuffixDropper": SuffixDropper, "StreamEchoDropper": StreamEchoDropper} {
			if got := by([]byte(start)) == LocalAI; got != want {
				t.Errorf("%s(%s) = LocalAI %v, want %v", name, start, got, want)
			}
		}
		if by := WholeEchoDropper([]byte(start)); by == LocalAI {
			t.Errorf("WholeEchoDropper(%s) = LocalAI, want another: its whole answer holds the echo", start)
		}
	}
}

func TestLoRAXAnswer(t *testing.T) {
	for start, want := range map[string]bool{
		`{"id":"null","object":"text_completion","created":0,"model":"null","choices":[{"index":0,"text":"(a","logprobs":null,"finish_reason":null}]}`: true,  // a stream's event or a whole answer
		`{"object":"text_completion","id":"","created":1,"choices":[{"index":0,"text":"(a","logprobs":null,"finish_reason":""}]}`:                      false, // TGI's
		`{"id":"null","object":"chat.completion.chunk","created":0,"model":"null","choices":[]}`:                                                       false, // a chat chunk
		`{"id":"cmpl-1","object":"text_completion","created":0,"model":"null"}`:                                                                        false,
	} {
		if got := LoRAXAnswer([]byte(start)); got != want {
			t.Errorf("LoRAXAnswer(%s) = %v, want %v", start, got, want)
		}
		if got := SuffixDropper([]byte(start)) == LoRAX; got != want {
			t.Errorf("SuffixDropper(%s) = LoRAX %v, want %v", start, got, want)
		}
		if got := StreamEchoDropper([]byte(start)) == LoRAX; got != want {
			t.Errorf("StreamEchoDropper(%s) = LoRAX %v, want %v", start, got, want)
		}
		if by := WholeEchoDropper([]byte(start)); by != "" {
			t.Errorf("WholeEchoDropper(%s) = %q, want none: LoRAX's whole answer holds the prompt", start, by)
		}
	}
}

func TestTGIRouter(t *testing.T) {
	for h, want := range map[string]bool{"gpu+optimized": true, "cpu": true, "": false} {
		res := &http.Response{Header: http.Header{}}
		if h != "" {
			res.Header.Set("x-compute-type", h)
		}
		if got := TGIRouter(res); got != want {
			t.Errorf("TGIRouter(x-compute-type %q) = %v, want %v", h, got, want)
		}
	}
	if TGIRouter(nil) {
		t.Error("TGIRouter(nil) = true, want false")
	}
}
