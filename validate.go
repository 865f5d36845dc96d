package tokenpace

import (
	"errors"
)

// ErrInvalidOutput is what errors.Is finds in the error of a request whose
// output a validator rejected (a KindInvalid *StreamError).
var ErrInvalidOutput = errors.New("tokenpace: output rejected by the validator")

// A Validator is a quality gate: it checks the finished text of the first
// choice (across continuations) when a stream ends cleanly and returns an
// error to reject it. A rejection counts against the target like a budget
// breach (its circuit breaker, Timing.Err, OutcomeInvalid), so goodput
// counts only validated outputs. It runs on the goroutine that reads the
// response and should be quick.
type Validator func(text string) error

// rejected is the Err of a KindInvalid StreamError: the validator's
// error, which errors.Is and errors.As reach beside ErrInvalidOutput.
type rejected struct{ err error }

func (r rejected) Error() string   { return r.err.Error() }
func (r rejected) Unwrap() []error { return []error{ErrInvalidOutput, r.err} }
