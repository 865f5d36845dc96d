package codec

import (
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/tidwall/gjson"
)

// cutJSON reports whether a stops inside a JSON value: what its writer
// began as JSON and did not finish, as arguments closed before their end
// are. Text that is no JSON otherwise (single quotes, unquoted keys, an
// extra closing brace, free text) is not cut: a model writes arguments so
// and means them whole. encoding/json's Decoder tells the two apart: input
// that ends inside a value gives io.ErrUnexpectedEOF, any other fault a
// *json.SyntaxError (src/encoding/json/stream.go, Decoder.readValue). The
// Decoder runs only on text gjson found no whole JSON value in.
func cutJSON(a string) bool {
	if a == "" || gjson.Valid(a) {
		return false
	}
	var v json.RawMessage
	return errors.Is(json.NewDecoder(strings.NewReader(a)).Decode(&v), io.ErrUnexpectedEOF)
}
