package tokenpace

import (
	"errors"
)

// ErrInvalidOutput is the sentinel every *ValidationError unwraps to.
var ErrInvalidOutput = errors.New("tokenpace: output rejected by the validator")

// A Validator is a quality gate: it checks the finished text of the first
// choice (across continuations) when a stream ends cleanly and returns an
// error to reject it. A rejection counts against the target like a budget
// breach (its circuit breaker, Timing.Err, OutcomeInvalid), so goodput
// counts only validated outputs. It runs on the goroutine that reads the
// response and should be quick.
type Validator func(text string) error

// ValidationError reports that a validator rejected a target's output.
// errors.Is matches ErrInvalidOutput; Unwrap reaches the validator's error
// too.
type ValidationError struct {
	// Target names the target whose output was rejected.
	Target string
	// Err is the validator's error.
	Err error
}

// Error implements error. It holds the validator's message, which should
// not quote the output.
func (e *ValidationError) Error() string {
	msg := "tokenpace: output rejected by the validator"
	if e.Target != "" {
		msg += " on target " + e.Target
	}
	return msg + ": " + e.Err.Error()
}

// Unwrap returns ErrInvalidOutput and the validator's error.
func (e *ValidationError) Unwrap() []error { return []error{ErrInvalidOutput, e.Err} }
