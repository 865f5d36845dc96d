package codec

import (
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3"
)

// emptyObjectArgs drops the "{}" a relay put before a tool call's
// arguments. Helicone's AI Gateway, relaying Anthropic's Messages stream
// as chat chunks, writes a tool_use block's start, whose input is always
// {} (the arguments follow as input_json_delta), as the call's first
// arguments, "{}", and then the deltas: the accumulated arguments are
// {}{"city": "Paris"} (Helicone/ai-gateway
// ai-gateway/src/middleware/mapper/anthropic.rs, try_convert_chunk). "{}"
// followed by anything but white space is never JSON; only where what
// follows it is a JSON object of its own is the "{}" dropped, so that
// arguments that are JSON stay as they came.
func emptyObjectArgs(c *openai.ChatCompletion) {
	for call := range calls(c) {
		f := &call.Function
		rest, ok := strings.CutPrefix(f.Arguments, "{}")
		if !ok {
			continue
		}
		rest = strings.TrimLeft(rest, " \t\r\n")
		if strings.HasPrefix(rest, "{") && json.Valid([]byte(rest)) {
			f.Arguments = rest
		}
	}
}
