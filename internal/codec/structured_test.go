package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

func TestConstrained(t *testing.T) {
	tests := []struct {
		body string
		want bool
	}{
		{`{"model":"m","guided_json":{"type":"object"}}`, true},
		{`{"model":"m","guided_regex":"\\d+"}`, true},
		{`{"model":"m","guided_grammar":"root ::= \"a\""}`, true},
		{`{"model":"m","guided_choice":["a","b"]}`, true},
		{`{"model":"m","structured_outputs":{"json":{}}}`, true},
		{`{"model":"m","structured_outputs":{"choice":["a"]}}`, true},
		{`{"model":"m","structured_outputs":{"json_object":true}}`, true},
		{`{"model":"m","structured_outputs":{"json_object":false}}`, false},
		{`{"model":"m","structured_outputs":{"disable_any_whitespace":true}}`, false},
		{`{"model":"m","json_schema":{}}`, true},
		{`{"model":"m","grammar":"root ::= \"a\""}`, true},
		{`{"model":"m","grammar":""}`, false},
		{`{"model":"m","regex":"\\d{3}-\\d{4}"}`, true},                                                    // SGLang
		{`{"model":"m","ebnf":"root ::= \"yes\" | \"no\""}`, true},                                         // SGLang
		{`{"model":"m","regex":null,"ebnf":""}`, false},                                                    // SGLang's defaults
		{`{"model":"m","response_format":{"type":"structural_tag","format":{}}}`, true},                    // SGLang, vLLM
		{`{"model":"m","response_format":{"type":"json","value":{"type":"object"}}}`, true},                // TGI
		{`{"model":"m","response_format":{"type":"regex","value":"\\d+"}}`, true},                          // TGI
		{`{"model":"m","response_format":{"type":"grammar","grammar":"root ::= \"yes\" | \"no\""}}`, true}, // Fireworks
		{`{"model":"m","nvext":{"guided_json":{"type":"object"}}}`, true},                                  // NVIDIA NIM
		{`{"model":"m","nvext":{"guided_choice":["a","b"]}}`, true},                                        // NVIDIA NIM
		{`{"model":"m","nvext":{"guided_json":null,"repetition_penalty":1.1}}`, false},
		{`{"model":"m","guided_json":null}`, false},
		{`{"model":"m","response_format":{"type":"json_object"}}`, true},
		{`{"model":"m","response_format":{"type":"text"}}`, false},
		{`{"model":"m","text":{"format":{"type":"json_schema","name":"p","schema":{}}}}`, true},
		{`{"model":"m","text":{"format":{"type":"text"}}}`, false},
		{`{"model":"m","top_k":40,"messages":[{"role":"user","content":"{\"grammar\":\"x\"}"}]}`, false},
		{`not json`, false},
	}
	for _, tt := range tests {
		if got := Constrained([]byte(tt.body)); got != tt.want {
			t.Errorf("Constrained(%s) = %v, want %v", tt.body, got, tt.want)
		}
	}
}

func TestStructuredExtraFields(t *testing.T) {
	p := openai.ChatCompletionNewParams{Model: "m"}
	if Structured(Chat(p, true)) {
		t.Errorf("Structured(chat without extras) = true, want false")
	}
	p.SetExtraFields(map[string]any{"guided_choice": []string{"yes", "no"}})
	if !Structured(Chat(p, true)) {
		t.Errorf("Structured(chat with guided_choice) = false, want true")
	}
	c := openai.CompletionNewParams{Model: "m"}
	c.SetExtraFields(map[string]any{"grammar": `root ::= "a"`})
	if !Structured(Completion(c, true)) {
		t.Errorf("Structured(completion with grammar) = false, want true")
	}
}

// A chat request asks for its answer spoken when its modalities, typed or
// set as an extra field, hold "audio"; a text answer alone does not.
func TestSpoken(t *testing.T) {
	typed := openai.ChatCompletionNewParams{Model: "m", Modalities: []string{"text", "audio"}}
	extra := openai.ChatCompletionNewParams{Model: "m"}
	extra.SetExtraFields(map[string]any{"modalities": []any{"text", "audio"}})
	text := openai.ChatCompletionNewParams{Model: "m", Modalities: []string{"text"}}
	for _, tc := range []struct {
		name string
		r    Request
		want bool
	}{
		{"typed", Chat(typed, true), true},
		{"extra field", Chat(extra, true), true},
		{"text alone", Chat(text, true), false},
		{"none", Chat(openai.ChatCompletionNewParams{Model: "m"}, true), false},
	} {
		if got := Spoken(tc.r); got != tc.want {
			t.Errorf("Spoken(%s) = %v, want %v", tc.name, got, tc.want)
		}
		if got := RestartsOnly(tc.r); got != tc.want {
			t.Errorf("RestartsOnly(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A vLLM-Omni answer may have an audio stage unless its request names
// modalities, typed or as an extra field, without "audio".
func TestAudioStaged(t *testing.T) {
	extraText := openai.ChatCompletionNewParams{Model: "m"}
	extraText.SetExtraFields(map[string]any{"modalities": []string{"text"}})
	for _, tc := range []struct {
		name string
		p    openai.ChatCompletionNewParams
		want bool
	}{
		{"none named", openai.ChatCompletionNewParams{Model: "m"}, true},
		{"text and audio", openai.ChatCompletionNewParams{Model: "m", Modalities: []string{"text", "audio"}}, true},
		{"text alone", openai.ChatCompletionNewParams{Model: "m", Modalities: []string{"text"}}, false},
		{"text alone as an extra field", extraText, false},
	} {
		if got := audioStaged(Chat(tc.p, true).(chat)); got != tc.want {
			t.Errorf("audioStaged(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
