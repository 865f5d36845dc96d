package codec

import "testing"

// TestTGIChunk: TGI's chunks have no id and a fingerprint of its version
// and Docker label; llama.cpp's ("b" and its build) and OpenAI's are
// not TGI's.
func TestTGIChunk(t *testing.T) {
	for _, tt := range []struct {
		id, fingerprint string
		want            bool
	}{
		{"", "3.3.6-native", true},
		{"", "3.2.0-sha-5c5528e", true},
		{"", "3.3.7-dev0-native", true},
		{"", "b6123-5c0eb5ef", false},
		{"", "fp_0705bf87c0", false},
		{"", "3.3-native", false},
		{"", "3.3.6", false},
		{"", "", false},
		{"chatcmpl-1", "3.3.6-native", false},
	} {
		if got := tgiChunk(tt.id, tt.fingerprint); got != tt.want {
			t.Errorf("tgiChunk(%q, %q) = %v, want %v", tt.id, tt.fingerprint, got, tt.want)
		}
	}
}
