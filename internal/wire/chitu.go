package wire

import "net/http"

// chituOverloaded is the detail of Chitu's refusal of a request past its
// limit of requests in hand (thu-pacman/chitu chitu/serve.py,
// create_chat_completion: with the "skew" cache, a pool of max_reqs
// requests already held, HTTPException(status_code=403, detail=…)).
const chituOverloaded = "exceeding server processing capacity"

// ChituOverload reports whether res is Chitu's refusal of a request for
// want of capacity, which it answers 403, the status of a request the
// caller may not make: FastAPI's {"detail": "exceeding server processing
// capacity"}, as BoundErrorBody made it (an error object of that
// message). Sent again a little later, or to another server, such a
// request is answered; as a 403 it was sent once and handed to the
// caller as its own fault. It reads the body, bounded already, only
// under 403, and puts it back.
func ChituOverload(res *http.Response) bool {
	e, ok := errorOf(res, http.StatusForbidden)
	return ok && e.Message == chituOverloaded
}
