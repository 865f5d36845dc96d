package wire

import (
	"net/http"
	"strings"
)

// lmStudioLoadFailed is how LM Studio's message begins when it could not
// load the model a request named: with just-in-time loading on, it loads
// the model at the request, and a load that fails is answered before any
// event with 400 and its usual error object, `Failed to load model
// "qwen/qwen3-coder-30b". Error: Operation canceled.` (charmbracelet/crush#2546,
// LM Studio 0.4.8: the client showed "Bad Request" and these words), the
// load's own error after "Error: ".
const lmStudioLoadFailed = `Failed to load model "`

// lmStudioLoadCancelled is how the message of a load that was cancelled
// ends: the one load failure that another try may not meet. The others
// fail the same way again: the guardrail's refusal of a model too big for
// the machine ("Model loading was stopped due to insufficient system
// resources. …", lmstudio-ai/lmstudio-bug-tracker#1202, #1038), a model
// file its engine cannot load ("Error loading model.",
// continuedev/continue#10150; lmstudio-ai/lmstudio-bug-tracker#1950).
const lmStudioLoadCancelled = `". Error: Operation canceled.`

// LMStudioLoadFailure reports whether res is LM Studio's 400 for a model
// whose load was cancelled: the server's failure, not the request's. Sent
// again a little later, or to another server, the request is answered; as
// a 400 it was sent once, not counted by a breaker, and a Router handed it
// to its caller as the caller's own fault. A load that failed for any
// other reason stays the 400 LM Studio gave: the request names a model
// that server will not or cannot load, and three tries would fail alike.
// It reads the body, bounded already (BoundErrorBody), only under 400,
// and puts it back.
func LMStudioLoadFailure(res *http.Response) bool {
	e, ok := errorOf(res, http.StatusBadRequest)
	return ok && strings.HasPrefix(e.Message, lmStudioLoadFailed) && strings.HasSuffix(strings.TrimSpace(e.Message), lmStudioLoadCancelled)
}
