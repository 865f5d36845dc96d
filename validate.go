package tokenpace

import (
	"errors"
)

// Validating a Router call's output: the error of an output a validator
// rejected, and the run of the validator (CallPolicy, Route, Policy) on a
// try's finished output.

// ErrInvalidOutput is what errors.Is finds in the error of a request whose
// output a validator rejected (a KindInvalid *StreamError).
var ErrInvalidOutput = errors.New("tokenpace: output rejected by the validator")

// invalidOutput is the Err of a KindInvalid StreamError: the validator's
// error, which errors.Is and errors.As reach beside ErrInvalidOutput.
type invalidOutput struct{ err error }

func (r invalidOutput) Error() string   { return r.err.Error() }
func (r invalidOutput) Unwrap() []error { return []error{ErrInvalidOutput, r.err} }

// validate runs the validator on tr's finished output. c.mu is held.
func (c *call) validate(tr *try) {
	v := c.set.validator
	if v == nil {
		v = tr.rt.Validator
	}
	if v == nil {
		v = c.r.pol.Validator
	}
	if v == nil {
		return
	}
	text := c.chainText()
	if c.set.buffered || !tr.chained {
		// Held back (RetryInvalid, or on probation when it ended): its
		// text is what it read, none of it the caller's yet.
		text = tr.a.unread(appendContent)
	}
	var verr error
	check := func() {
		what := "Validator"
		if perr := guard(tr.rt.Name, &what, func() { verr = v(text) }); perr != nil {
			verr = perr // a validator that panics rejects the output
		}
	}
	if !c.code().run(check, nil) {
		// The call stopped waiting for it: the output was not validated,
		// and the call ends as its context or Close says.
		tr.validErr, tr.outcome = c.code().givenUp(), OutcomeCanceled
		return
	}
	if verr != nil {
		tr.validErr = &StreamError{Kind: KindInvalid, Target: tr.rt.Name, Err: invalidOutput{verr}}
		tr.outcome = OutcomeInvalid
	}
}
