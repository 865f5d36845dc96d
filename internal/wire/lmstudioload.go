package wire

import (
	"net/http"
	"strings"
)

// lmStudioLoadFailed is how LM Studio's message begins when it could not
// load the model a request named: with just-in-time loading on, it loads
// the model at the request, and a load that fails (cancelled, out of
// memory, its engine exited) is answered before any event with 400 and
// its usual error object, `Failed to load model "qwen/qwen3-coder-30b".
// Error: Operation canceled.` (charmbracelet/crush#2546, LM Studio
// 0.4.8: the client showed "Bad Request" and these words).
const lmStudioLoadFailed = `Failed to load model "`

// LMStudioLoadFailure reports whether res is LM Studio's 400 for a model
// it failed to load: the server's failure, not the request's. Sent again
// a little later, or to another server, the request is answered; as a 400
// it was sent once, not counted by a breaker, and a Router handed it to
// its caller as the caller's own fault. It reads the body, bounded
// already (BoundErrorBody), only under 400, and puts it back.
func LMStudioLoadFailure(res *http.Response) bool {
	e, ok := errorOf(res, http.StatusBadRequest)
	return ok && strings.HasPrefix(e.Message, lmStudioLoadFailed)
}
