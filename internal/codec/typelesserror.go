package codec

import "github.com/tidwall/gjson"

// typelessError returns the error of a Responses event that has no type
// and no "error" member but a message of its own, "message" or AWS's
// "Message", a non-empty string: Amazon Bedrock's Mantle ends a Responses
// stream it cannot finish (throttled, an internal error), after output or
// before it, with such an AWS error object and nothing after it
// (vercel/ai#20505). nil for any other event. Decode asks only of an
// event without a type, which no Responses event of a whole answer is.
func typelessError(data []byte) *ServerError {
	for _, r := range gjson.GetManyBytes(data, "message", "Message") {
		if r.Type == gjson.String && r.Str != "" {
			return &ServerError{Message: r.Str}
		}
	}
	return nil
}
