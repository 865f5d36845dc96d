package wire

import "strings"

// keyPrefixes are how keys begin: OpenAI's (sk-; Anthropic's sk-ant- and
// OpenRouter's sk-or- among them), Google's (AIza), Hugging Face's (hf_),
// Groq's (gsk_), xAI's (xai-), Perplexity's (pplx-), NVIDIA's (nvapi-),
// and a JWT's (eyJ, `{"` in base64).
var keyPrefixes = [...]string{"sk-", "sk_", "AIza", "hf_", "gsk_", "xai-", "pplx-", "nvapi-", "eyJ"}

// secretNames are how the name of a secret ends, in lower case: a key's
// (api_key, x-api-key, api-key, Ocp-Apim-Subscription-Key), a token's, a
// secret's, a password's, and the Authorization header.
var secretNames = [...]string{"key", "token", "secret", "password", "authorization"}

// hideSecrets returns msg, words a server wrote, with what may be a secret
// it repeats hidden, each "[hidden]": the query of a URL (everything after
// "?" in a word that has "=", as a page repeating the request's URL shows
// ?key=…); a word that begins as a key does and runs on for 16 characters
// more, wherever it stands (quoted, after "=" or ":"); the value after a
// secret's name and "=" (api_key=…); and, when it looks like a key (see
// keyLike), the value after such a name and ":" (x-api-key: …) or after
// "Bearer" or "Basic". Words that only name a key or a token ("missing
// Bearer token") stay.
func hideSecrets(msg string) string {
	msg = hideQueries(msg)
	var b strings.Builder
	after := "" // the name or scheme before this word, if any
	for i := 0; i < len(msg); {
		if !keyByte(msg[i]) {
			b.WriteByte(msg[i])
			i++
			continue
		}
		j := i
		for j < len(msg) && keyByte(msg[j]) {
			j++
		}
		w := msg[i:j]
		switch {
		case keyOf(w), after == "=", after != "" && keyLike(w) && !scheme(w):
			b.WriteString("[hidden]")
		default:
			b.WriteString(w)
		}
		after = ""
		lower := strings.ToLower(w)
		switch rest := msg[j:]; {
		case secretName(lower) && strings.HasPrefix(rest, "="):
			after = "="
		case secretName(lower) && strings.HasPrefix(rest, ":"), scheme(w):
			after = lower
		}
		i = j
		if after != "" { // the separator and any space or quote up to the value
			for i < len(msg) && !keyByte(msg[i]) && strings.IndexByte("=: \t'\"", msg[i]) >= 0 {
				b.WriteByte(msg[i])
				i++
			}
		}
	}
	return b.String()
}

// hideQueries returns msg with the query of each URL it holds, from the
// "?" of a word that has "=" after it to the end of that word, hidden.
func hideQueries(msg string) string {
	var b strings.Builder
	for {
		q := strings.IndexByte(msg, '?')
		if q < 0 {
			break
		}
		end := len(msg)
		if k := strings.IndexAny(msg[q:], " \t\n\r"); k >= 0 {
			end = q + k
		}
		b.WriteString(msg[:q+1])
		if strings.Contains(msg[q:end], "=") {
			b.WriteString("[hidden]")
		} else {
			b.WriteString(msg[q+1 : end])
		}
		msg = msg[end:]
	}
	b.WriteString(msg)
	return b.String()
}

// keyByte reports whether c may be part of a key or a JWT: a letter, a
// digit, "-", "_" or ".".
func keyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.'
}

// keyOf reports whether w begins as a key does and runs on for at least
// 16 characters more.
func keyOf(w string) bool {
	for _, p := range keyPrefixes {
		if strings.HasPrefix(w, p) && len(w) >= len(p)+16 {
			return true
		}
	}
	return false
}

// keyLike reports whether w, a value after a secret's name or a scheme,
// looks like a key rather than a word: 8 characters or more with a digit
// among them, or 20 or more.
func keyLike(w string) bool {
	return len(w) >= 8 && strings.ContainsAny(w, "0123456789") || len(w) >= 20
}

// secretName reports whether lower, a word in lower case, names a secret.
func secretName(lower string) bool {
	for _, n := range secretNames {
		if strings.HasSuffix(lower, n) {
			return true
		}
	}
	return false
}

// scheme reports whether w is an Authorization header's scheme, whose
// credentials follow it.
func scheme(w string) bool { return strings.EqualFold(w, "Bearer") || strings.EqualFold(w, "Basic") }
