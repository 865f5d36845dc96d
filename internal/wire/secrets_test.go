package wire

import "testing"

// TestHideSecrets: a key the server repeats is hidden wherever it stands
// in the words (quoted, after "=" or a header's name, as a JWT), whoever
// issued it; words that only name a key or a token stay.
func TestHideSecrets(t *testing.T) {
	for msg, want := range map[string]string{
		"Invalid API key: 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123'":            "Invalid API key: '[hidden]'",
		`invalid_api_key ("gsk_abcdefghijklmnopqrstuvwxyz012345")`:                  `invalid_api_key ("[hidden]")`,
		"key xai-abcdefghijklmnopqrstuvwxyz0123 has no credits":                     "key [hidden] has no credits",
		"pplx-abcdefghijklmnopqrstuvwxyz0123, nvapi-abcdefghijklmnopqrstuvwxyz0123": "[hidden], [hidden]",
		"token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlMTIz expired":       "token [hidden] expired",
		"api_key=secret123 rejected":                                                "api_key=[hidden] rejected",
		"header x-api-key: abcd1234efgh rejected":                                   "header x-api-key: [hidden] rejected",
		"Ocp-Apim-Subscription-Key: 0123456789abcdef0123456789abcdef invalid":       "Ocp-Apim-Subscription-Key: [hidden] invalid",
		"Authorization: Bearer abc123def456 invalid":                                "Authorization: Bearer [hidden] invalid",
		"GET /v1/models?key=AIzaSyA1234567890abcdefghijklmnop\tnot found":           "GET /v1/models?[hidden]\tnot found",
		"missing Bearer token":                                                      "missing Bearer token",
		"Invalid API key: the key provided is wrong":                                "Invalid API key: the key provided is wrong",
		"Incorrect API key provided: sk-proj-****abcd":                              "Incorrect API key provided: sk-proj-****abcd",
	} {
		if got := hideSecrets(msg); got != want {
			t.Errorf("hideSecrets(%q) = %q, want %q", msg, got, want)
		}
	}
}
