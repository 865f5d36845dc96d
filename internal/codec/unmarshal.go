package codec

import (
	"bytes"
	"encoding/json"
)

// unmarshal decodes data, one JSON value, into v, as json.Unmarshal(data,
// v) does, with the same result and the same error, but reading data once
// less. openai-go's types decode themselves (their UnmarshalJSON hands the
// bytes to their own decoder), and json.Unmarshal, given one, scans data
// twice before it calls it: once to validate it (checkValid), once more to
// find where the value ends (decodeState.object's skip), and then passes
// it the value without the white space around it (Go's
// src/encoding/json/decode.go, Unmarshal and decodeState.object). Here
// data is validated once and handed over directly; invalid data goes
// through json.Unmarshal, for its error. An event's decoding is most of
// a stream's CPU per chunk: the second scan was some 4 % of it.
func unmarshal(data []byte, v json.Unmarshaler) error {
	if !json.Valid(data) {
		return json.Unmarshal(data, v)
	}
	return v.UnmarshalJSON(bytes.Trim(data, jsonSpace))
}

// jsonSpace is the white space JSON allows around a value (RFC 8259,
// section 2).
const jsonSpace = " \t\r\n"
