package codec

import "github.com/tidwall/gjson"

// typelessError returns the error of a Responses event that has no type
// and no "error" member but a message of its own, "message" or AWS's
// "Message", a non-empty string: Amazon Bedrock's Mantle ends a Responses
// stream it cannot finish (throttled, an internal error), after output or
// before it, with such an AWS error object and nothing after it
// (vercel/ai#20505). Its "code", if any, is the error's code, as
// NamedError reads it: an error event a server names only by its
// "event: error" line, {"code","message"} with no type, keeps the code
// that tells a refused request from the server's failure. nil for any
// other event. Decode asks only of an event without a type, which no
// Responses event of a whole answer is.
func typelessError(data []byte) *ServerError {
	r := gjson.GetManyBytes(data, "message", "Message", "code")
	for _, m := range r[:2] {
		if m.Type == gjson.String && m.Str != "" {
			return &ServerError{Code: r[2].String(), Message: m.Str}
		}
	}
	return nil
}
