package wire

import (
	"strings"

	"github.com/tidwall/gjson"
)

// validationErrors returns the message of d, the list of validation
// errors a server built on FastAPI answers a request its schema refuses
// with (pydantic's, each {"type": …, "loc": [<where>, …], "msg": …,
// "input": …}): each error's place, its loc joined by dots, and its msg,
// "body.store: Extra inputs are not permitted", the errors joined by "; "
// up to errorHead bytes; and the first error's type. The input, which can
// hold the whole request, is left out. ok is false when d is no such
// list.
//
// Mistral's API answers so: the list alone at the top level
// ({"detail": [{"type": "extra_forbidden", "loc": ["body",
// "max_completion_tokens"], …}]}: Gitlawb/openclaude#739, 2026), or as
// the message of an error at the top level ({"object": "error",
// "message": {"detail": […]}, "type": "invalid_request_error", …}:
// mistralai/client-python#91, 2024). openai-go reads a message from
// neither.
func validationErrors(d gjson.Result) (msg, name string, ok bool) {
	if !d.IsArray() {
		return "", "", false
	}
	var b strings.Builder
	d.ForEach(func(_, e gjson.Result) bool {
		m := e.Get("msg")
		if m.Type != gjson.String {
			return true
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		} else {
			name = e.Get("type").Str
		}
		var at []string
		for _, l := range e.Get("loc").Array() {
			at = append(at, l.String())
		}
		if len(at) > 0 {
			b.WriteString(strings.Join(at, ".") + ": ")
		}
		b.WriteString(m.Str)
		return b.Len() < errorHead
	})
	if b.Len() == 0 {
		return "", "", false
	}
	msg = b.String()
	if len(msg) > errorHead {
		msg = strings.ToValidUTF8(msg[:errorHead], "") // a rune cut at the end
	}
	return msg, name, true
}
