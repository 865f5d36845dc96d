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
