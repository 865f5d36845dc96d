package simulate

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestAppendString(t *testing.T) {
	tests := []string{
		"",
		"plain words.",
		" Next line\nand more",
		"tab\there, return\r\n",
		`a "quoted" word`,
		`back\slash`,
		"bell\a and nul\x00",
		"<b>&amp;</b>",
		"naïve café ✓",
		"invalid \xff byte",
		"line\u2028separator",
	}
	for _, s := range tests {
		got := appendString([]byte("x"), s)
		if got[0] != 'x' {
			t.Errorf("appendString(%q) dropped the prefix: %s", s, got)
			continue
		}
		var back string
		if err := json.Unmarshal(got[1:], &back); err != nil {
			t.Errorf("appendString(%q) = %s, not a JSON string: %v", s, got[1:], err)
			continue
		}
		if want := string(bytes.ToValidUTF8([]byte(s), []byte("\uFFFD"))); back != want {
			t.Errorf("appendString(%q) decodes to %q, want %q", s, back, want)
		}
	}
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	// Without HTML characters, the escaping is encoding/json's exactly.
	for _, s := range []string{"a\nb", "\t\"x\"\r", `\\`, "ctrl\x01", "é"} {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	}
}

// TestFormatBytes pins the wire format of both endpoints, byte for byte.
func TestFormatBytes(t *testing.T) {
	const (
		chat = `{"id":"c-1","object":"chat.completion.chunk","created":42,"model":"m",`
		text = `{"id":"c-1","object":"text_completion","created":42,"model":"m",`
		use  = `"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":1}}`
	)
	u := usage{prompt: 3, completion: 2, cached: 1}
	cf, cu := newChatFormat("c-1", 42, "m", false), newChatFormat("c-1", 42, "m", true)
	tf, tu := newTextFormat("c-1", 42, "m", false, 0), newTextFormat("c-1", 42, "m", true, 0)
	lps := []tokenLogprob{{token: "é", logprob: -0.25, top: []altLogprob{{"é", -0.25}, {"e", -1.5}}}}
	lt := newTextFormat("c-1", 42, "m", false, 3)
	tests := []struct {
		name      string
		got, want []byte
	}{
		{"chat role", cf.role(nil), []byte("data: " + chat + `"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}` + "\n\n")},
		{"chat token", cu.token(nil, "a\"b", nil), []byte("data: " + chat + `"choices":[{"index":0,"delta":{"content":"a\"b"},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n")},
		{"chat finish", cf.finish(nil, "stop"), []byte("data: " + chat + `"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}` + "\n\n")},
		{"chat usage", cu.usage(nil, u), []byte("data: " + chat + `"choices":[],` + use + "}\n\n")},
		{"chat whole", cf.whole(nil, "Hi.", "length", u, nil), []byte(`{"id":"c-1","object":"chat.completion","created":42,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi.","refusal":null},"logprobs":null,"finish_reason":"length"}],` + use + "}\n")},
		{"chat token logprobs", cf.token(nil, "é", lps), []byte("data: " + chat + `"choices":[{"index":0,"delta":{"content":"é"},"logprobs":{"content":[{"token":"é","logprob":-0.25,"bytes":[195,169],"top_logprobs":[{"token":"é","logprob":-0.25,"bytes":[195,169]},{"token":"e","logprob":-1.5,"bytes":[101]}]}],"refusal":null},"finish_reason":null}]}` + "\n\n")},
		{"text role", tf.role(nil), nil},
		{"text token logprobs", lt.token(nil, "é", lps), []byte("data: " + text + `"choices":[{"index":0,"text":"é","logprobs":{"tokens":["é"],"token_logprobs":[-0.25],"top_logprobs":[{"é":-0.25,"e":-1.5}],"text_offset":[3]},"finish_reason":null}]}` + "\n\n")},
		{"text token", tu.token(nil, "a", nil), []byte("data: " + text + `"choices":[{"index":0,"text":"a","logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n")},
		{"text finish", tf.finish(nil, "stop"), []byte("data: " + text + `"choices":[{"index":0,"text":"","logprobs":null,"finish_reason":"stop"}]}` + "\n\n")},
		{"text usage", tu.usage(nil, u), []byte("data: " + text + `"choices":[],` + use + "}\n\n")},
		{"text whole", tf.whole(nil, "Hi.", "stop", u, nil), []byte(text + `"choices":[{"index":0,"text":"Hi.","logprobs":null,"finish_reason":"stop"}],` + use + "}\n")},
	}
	for _, tt := range tests {
		if !bytes.Equal(tt.got, tt.want) {
			t.Errorf("%s = %s, want %s", tt.name, tt.got, tt.want)
		}
	}
}
