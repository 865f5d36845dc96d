package tokenpace

import (
	"errors"
)

// ErrInvalidOutput is what errors.Is finds in the error of a request whose
// output a validator rejected (a KindInvalid *StreamError).
var ErrInvalidOutput = errors.New("tokenpace: output rejected by the validator")

// invalidOutput is the Err of a KindInvalid StreamError: the validator's
// error, which errors.Is and errors.As reach beside ErrInvalidOutput.
type invalidOutput struct{ err error }

func (r invalidOutput) Error() string   { return r.err.Error() }
func (r invalidOutput) Unwrap() []error { return []error{ErrInvalidOutput, r.err} }
