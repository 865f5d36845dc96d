package codec

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3"
)

// markupArgs returns args trimmed, and whether they are a JSON object: the
// only arguments a call written as a template's markup in the text (see
// plamoCalls, harmonyChannels) is made of.
func markupArgs(args string) (string, bool) {
	var obj map[string]json.RawMessage
	args = strings.TrimSpace(args)
	return args, json.Unmarshal([]byte(args), &obj) == nil && obj != nil
}

// markupCall returns the n-th call a template's markup in the text wrote,
// to the function name with args: type "function", id "call_<family>_<n>".
func markupCall(family string, n int, name, args string) openai.ChatCompletionMessageToolCallUnion {
	return openai.ChatCompletionMessageToolCallUnion{
		ID: "call_" + family + "_" + strconv.Itoa(n), Type: "function",
		Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: name, Arguments: args},
	}
}
