package wire

import (
	"bytes"
	"cmp"
	"html"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// maxPageMessage bounds the message read from a page (see pageMessage).
const maxPageMessage = 256

// pageMessage returns the message of head, an error body that is a web
// page or lines of text rather than JSON, which openai-go reports with no
// message at all (its Error says the status alone): a proxy's or a CDN's
// own page, or a relay that passes an upstream's page on as text. For an
// HTML page it is the page's <title>, else its first <h1>, else its lines
// of text outside scripts and styles (see pageWords); for text, its lines
// joined by spaces. Tags are stripped, entities decoded and runs of white
// space made one space; the message is cut to 256 bytes, and a
// query string or a key the page repeats is hidden (see hideSecrets).
//
// Bodies so answered: nginx's and openresty's pages (<title>504 Gateway
// Time-out</title>, AWS's load balancer's alike), Cloudflare's 5xx pages
// (<title>host | 524: A timeout occurred</title>: su-kaka/gcli2api#354),
// Google's front end (<title>Error 502 (Server Error)!!1</title>),
// Vercel's text ("An error occurred with your deployment\n\n
// FUNCTION_INVOCATION_TIMEOUT\n\n<id>": musistudio/claude-code-router#271),
// and Open WebUI, which relays an upstream's page with its status as
// text/plain or in FastAPI's "detail". ok is false for JSON, for an
// event stream's lines, for a body that is no UTF-8 text, and for one
// with nothing to read.
func pageMessage(head []byte) (string, bool) {
	t := bytes.TrimSpace(head)
	if len(t) == 0 || !utf8.Valid(t) || bytes.IndexByte(t, 0) >= 0 || t[0] == '{' || t[0] == '[' || gjson.ValidBytes(t) {
		return "", false
	}
	var msg string
	if isPage(t) {
		msg = pageWords(string(t))
	} else {
		for _, p := range [...]string{"data:", "event:", "id:", ":"} {
			if bytes.HasPrefix(t, []byte(p)) || bytes.Contains(t, []byte("\n"+p)) {
				return "", false // an event stream's lines, read as such
			}
		}
		msg = oneLine(string(t))
	}
	msg = hideSecrets(msg)
	if len(msg) > maxPageMessage {
		cut := maxPageMessage
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg, msg != ""
}

// isPage reports whether t, trimmed, is an HTML document or fragment: it
// opens with a tag, a comment or a doctype.
func isPage(t []byte) bool {
	if len(t) < 2 || t[0] != '<' {
		return false
	}
	return t[1] == '!' || t[1] == '?' || unicode.IsLetter(rune(t[1]))
}

// pageWords returns the words of page: its title, else its first h1,
// else its lines of text outside scripts and styles, joined; a title or
// an h1 that says no more than that there was an error (see generic) is
// passed over, and so is such a line.
func pageWords(page string) string {
	lower := asciiLower(page)
	first := "" // a generic title or h1, if nothing else
	for _, tag := range [...]string{"title", "h1"} {
		if inner, ok := element(page, lower, tag); ok {
			w := oneLine(text(inner))
			if w != "" && !generic(w) {
				return w
			}
			first = cmp.Or(first, w)
		}
	}
	var words []string
	n := 0
	for line := range strings.SplitSeq(text(page), "\n") {
		if w := oneLine(line); w != "" && !generic(w) {
			words = append(words, w)
			if n += len(w) + 1; n > maxPageMessage {
				break // the message is cut there (see pageMessage)
			}
		}
	}
	if len(words) == 0 {
		return first
	}
	return strings.Join(words, " ")
}

// generic reports whether w, a page's title, heading or line, says no
// more than that there was an error: Express's page, whose title is
// "Error" and whose words are in a <pre> ("Cannot POST /v1/chat/completions";
// pillarjs/finalhandler, createHtmlDocument), and the page of Python's
// http.server, whose title and h1 are "Error response" and whose words
// are in paragraphs (Lib/http/server.py, DEFAULT_ERROR_MESSAGE).
func generic(w string) bool {
	return strings.EqualFold(w, "Error") || strings.EqualFold(w, "Error response")
}

// element returns the inside of the first element named tag in page,
// whose lower-case copy is lower.
func element(page, lower, tag string) (string, bool) {
	i := strings.Index(lower, "<"+tag)
	for i >= 0 {
		rest := lower[i+1+len(tag):]
		if rest != "" && (rest[0] == '>' || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r') {
			break
		}
		j := strings.Index(rest, "<"+tag)
		if j < 0 {
			return "", false
		}
		i += 1 + len(tag) + j
	}
	if i < 0 {
		return "", false
	}
	open := strings.IndexByte(lower[i:], '>')
	if open < 0 {
		return "", false
	}
	start := i + open + 1
	end := strings.Index(lower[start:], "</"+tag)
	if end < 0 {
		return "", false
	}
	return page[start : start+end], true
}

// text returns s with its scripts, styles and comments dropped, its tags
// taken out (a tag that ends a block, such as </p> or <br>, as a line
// break; see endsBlock) and its entities decoded.
func text(s string) string {
	var b strings.Builder
	lower := asciiLower(s)
	for i := 0; i < len(s); {
		if s[i] != '<' {
			j := strings.IndexByte(s[i:], '<')
			if j < 0 {
				j = len(s) - i
			}
			b.WriteString(s[i : i+j])
			i += j
			continue
		}
		skip := ""
		switch {
		case strings.HasPrefix(lower[i:], "<!--"):
			skip = "-->"
		case strings.HasPrefix(lower[i:], "<script"):
			skip = "</script"
		case strings.HasPrefix(lower[i:], "<style"):
			skip = "</style"
		}
		if skip != "" {
			j := strings.Index(lower[i:], skip)
			if j < 0 {
				break // unclosed: the rest is not text
			}
			i += j + len(skip)
		}
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			break
		}
		if endsBlock(lower[i : i+j]) {
			b.WriteByte('\n')
		}
		i += j + 1
	}
	return html.UnescapeString(b.String())
}

// blockEnds are the tags, in lower case and without their "<", that end
// a line of a page's text; an inline tag (</code>, </span>) does not.
var blockEnds = [...]string{"br", "hr", "/p", "/div", "/h1", "/h2", "/h3", "/h4", "/h5", "/h6", "/li", "/tr", "/td",
	"/center", "/header", "/footer", "/section", "/title", "/pre", "/table", "/head", "/body", "/html"}

// endsBlock reports whether tag, a tag in lower case from its "<" to
// before its ">", ends a line of text.
func endsBlock(tag string) bool {
	if len(tag) < 2 {
		return false // the rest of a script's or a style's closing tag
	}
	for _, e := range blockEnds {
		if rest, ok := strings.CutPrefix(tag[1:], e); ok && (rest == "" || rest[0] == ' ' || rest[0] == '/' || rest[0] == '\t' || rest[0] == '\n') {
			return true
		}
	}
	return false
}

// oneLine returns the words of s on one line: runs of white space,
// line breaks among them, made one space, control characters dropped.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
}

// asciiLower returns s with its ASCII letters in lower case, every byte
// where it was (strings.ToLower may change a non-ASCII letter's length).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
