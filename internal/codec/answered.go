package codec

import (
	"encoding/json"

	"github.com/tidwall/gjson"
)

// Answered returns the content of the message a chat request's answer
// answers, as the request's body holds it (a string's text, else the
// JSON of its parts): its last message's, or, for a continuation
// (continued), that of the last message before the output so far and the
// continue prompt that For appends. It is "" for a request of another API
// or with no such message. With the answer's content, it tells one
// assistant turn from another of the same words (see wire.AnswerKey).
func Answered(r Request, continued bool) string {
	if r == nil || r.API() != APIChat {
		return ""
	}
	msgs := r.View().Messages
	i := len(msgs) - 1
	if continued {
		i -= 2
	}
	if i < 0 {
		return ""
	}
	b, err := json.Marshal(msgs[i])
	if err != nil {
		return ""
	}
	return gjson.GetBytes(b, "content").String()
}
