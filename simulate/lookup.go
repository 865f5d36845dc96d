package simulate

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// ErrUnknownName is the sentinel a *UnknownNameError unwraps to.
var ErrUnknownName = errors.New("simulate: unknown name")

// UnknownNameError reports a catalog lookup that found nothing.
type UnknownNameError struct {
	// Kind is what was looked up: "GPU", "model" or "precision".
	Kind string
	// Name is the name asked for.
	Name string
	// Known lists the catalog's canonical names.
	Known []string
}

// Error names what was looked up, the unknown name and the names known.
func (e *UnknownNameError) Error() string {
	return fmt.Sprintf("simulate: unknown %s %q (known: %s)", e.Kind, e.Name, strings.Join(e.Known, ", "))
}

// Unwrap returns ErrUnknownName.
func (e *UnknownNameError) Unwrap() error { return ErrUnknownName }

// ErrInvalid is the sentinel an *InvalidError unwraps to.
var ErrInvalid = errors.New("simulate: invalid value")

// InvalidError reports an impossible input: a negative size, a model that
// does not fit in memory, an efficiency outside (0, 1].
type InvalidError struct {
	// Field names the input.
	Field string
	// Value is the value given.
	Value any
	// Reason says what is wrong with it.
	Reason string
}

// Error names the input, its value and what is wrong with it.
func (e *InvalidError) Error() string {
	return fmt.Sprintf("simulate: invalid %s %v: %s", e.Field, e.Value, e.Reason)
}

// Unwrap returns ErrInvalid.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

type catalogEntry[T any] struct {
	v       T
	aliases []string
}

func values[T any](c []catalogEntry[T]) []T {
	out := make([]T, len(c))
	for i, e := range c {
		out[i] = e.v
	}
	return out
}

// normalize folds case and drops everything but letters and digits, so
// "H100-SXM", "h100 sxm" and "h100_sxm" are one name.
func normalize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func lookup[T any](kind string, c []catalogEntry[T], name string, canon func(T) string) (T, error) {
	n := normalize(name)
	for _, e := range c {
		if n != "" && normalize(canon(e.v)) == n {
			return e.v, nil
		}
	}
	for _, e := range c {
		for _, a := range e.aliases {
			if n != "" && normalize(a) == n {
				return e.v, nil
			}
		}
	}
	known := make([]string, len(c))
	for i, e := range c {
		known[i] = canon(e.v)
	}
	var zero T
	return zero, &UnknownNameError{Kind: kind, Name: name, Known: known}
}
