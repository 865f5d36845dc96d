package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// parseFlags parses args into fs, whose Usage prints the command's help.
// Help (-h) prints it and stops with status 0. A bad flag gets one line
// that says what was expected, not Go's message followed by every flag,
// and stops with status 2. ok reports whether the command goes on.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (code int, ok bool) {
	usage := fs.Usage
	fs.Usage = func() {} // the flag package calls it on any error
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(stderr)
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		if usage != nil {
			usage()
		} else {
			fs.PrintDefaults()
		}
		return 0, false
	}
	fmt.Fprintf(stderr, "%s: %s (see %s -h)\n", fs.Name(), explainFlagError(fs, err), fs.Name())
	return 2, false
}

// explainFlagError says what a flag error means and what was expected.
func explainFlagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		// invalid value "V" for flag -NAME: REASON
		value, rest, _ := strings.Cut(rest, " for flag -")
		name, reason, _ := strings.Cut(rest, ": ")
		want := "want " + expected(fs.Lookup(name))
		if want == "want " {
			want = reason // a flag of its own kind says best what it takes
		}
		return fmt.Sprintf("--%s %s: %s", name, value, want)
	}
	if n, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return fmt.Sprintf("no flag --%s", n)
	}
	if n, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return fmt.Sprintf("--%s needs a value", n)
	}
	return msg
}

// expected describes the values a flag of a built-in kind takes; "" for
// a flag of another kind, or none.
func expected(f *flag.Flag) string {
	if f == nil {
		return ""
	}
	switch fmt.Sprintf("%T", f.Value) {
	case "*flag.durationValue":
		return "a duration such as 300ms, 2s or 1m30s"
	case "*flag.intValue", "*flag.int64Value", "*flag.uintValue", "*flag.uint64Value":
		return "a whole number"
	case "*flag.float64Value":
		return "a number such as 0.5"
	case "*flag.boolValue":
		return "true or false"
	}
	return ""
}

// flagsBesides returns, as "--name", the flags set on fs other than
// those named, in the order flag.FlagSet.Visit gives (by name).
func flagsBesides(fs *flag.FlagSet, names ...string) []string {
	var other []string
	fs.Visit(func(fl *flag.Flag) {
		if !slices.Contains(names, fl.Name) {
			other = append(other, "--"+fl.Name)
		}
	})
	return other
}
