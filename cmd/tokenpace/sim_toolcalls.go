package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tokenpace/tokenpace/simulate"
)

// toolCallsFlag is the value of sim's repeatable --tool-call flag: the
// function calls the simulator makes, each NAME=ARGUMENTS.
type toolCallsFlag []simulate.ToolCall

// toolCallUsage is the help text of --tool-call.
const toolCallUsage = "make a function call `NAME=JSON` (repeatable; in order) in reply to each chat or Responses request " +
	"that offers a function tool of that name, its arguments streamed over deltas of a few bytes as OpenAI and vLLM do; " +
	"requests that offer none of them get text"

func (f *toolCallsFlag) String() string {
	var b strings.Builder
	for i, c := range *f {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(c.Name + "=" + c.Arguments)
	}
	return b.String()
}

// Set adds one call, NAME=JSON, whose arguments must be a JSON object,
// as a function's arguments always are.
func (f *toolCallsFlag) Set(v string) error {
	name, args, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return errors.New("want NAME=JSON, e.g. get_weather={\"city\":\"Paris\"}")
	}
	if !json.Valid([]byte(args)) {
		return fmt.Errorf("the arguments of %s are not valid JSON: %s", name, args)
	}
	if !strings.HasPrefix(strings.TrimSpace(args), "{") {
		return fmt.Errorf("the arguments of %s are not a JSON object, as a function's are: %s", name, args)
	}
	*f = append(*f, simulate.ToolCall{Name: name, Arguments: args})
	return nil
}

// script returns the WithToolCalls script of the flag: for each request,
// the calls of the functions it offers.
func (f toolCallsFlag) script() func(simulate.ReplyInfo) []simulate.ToolCall {
	return func(ri simulate.ReplyInfo) []simulate.ToolCall {
		var out []simulate.ToolCall
		for _, c := range f {
			if slices.Contains(ri.Tools, c.Name) {
				out = append(out, c)
			}
		}
		return out
	}
}
