package codec

import (
	"strings"

	"github.com/openai/openai-go/v3/responses"
)

// exo's failed Responses answer.
//
// exo's /v1/responses (exo-explore/exo, src/exo/api/adapters/responses.py,
// generate_responses_stream) ends its loop over the runner's chunks with
// a bare break when one of them is the runner's error (a runner killed
// mid-answer: "Runner shutdown before completing command (signal=9
// (Killed))", src/exo/worker/runner/supervisor.py), and then writes what
// it writes after a whole answer: the text's done events and
// response.completed, status "completed", the error's message dropped.
// Its chat endpoint sends the same error as an error object. Its usage is
// set on an answer's last token alone (src/exo/worker/engines/mlx/
// generator/generate.py), which a failed answer never reaches: its
// response.completed is the only one without usage.

// exoFailed reports whether res, the response of a response.completed
// event, is exo's of an answer its runner failed: status "completed", no
// usage, no function call, and a message item whose id is "item_"
// before the UUID that follows "resp_" in the response's id, as exo
// names both.
func exoFailed(res *responses.Response) bool {
	id, ok := strings.CutPrefix(res.ID, "resp_")
	if !ok || res.Status != responses.ResponseStatusCompleted || res.JSON.Usage.Valid() {
		return false
	}
	exo := false
	for _, it := range res.Output {
		switch {
		case it.Type == "function_call":
			return false // a call's chunk may carry no usage (see parse_tool_calls)
		case it.Type == "message" && it.ID == "item_"+id:
			exo = true
		}
	}
	return exo
}
