package wire

import (
	"net/http"
	"strconv"
)

// FastChat's openai_api_server (lm-sys/FastChat,
// fastchat/serve/openai_api_server.py) answers every error of its own
// with status 400 (create_error_response): {"object": "error", "message":
// …, "code": N}, its code one of fastchat/constants.py's ErrorCode, an
// HTTP status times 100 and a number. In a call that does not stream, a
// worker's failure comes so too: CUDA out of memory (50002), a worker it
// could not reach or that raised (50001). openai-go does not send a 400
// again, and a breaker does not count it against the route.

// FastChatServerError reports whether res is FastChat's answer of a
// server error under status 400: a code from 50000 to 59999, as
// BoundErrorBody made its body (an error object of its message and
// code). Sent again, such a request may be answered; it says nothing
// against the request. It reads the body, bounded already, and puts it
// back.
func FastChatServerError(res *http.Response) bool {
	e, ok := errorOf(res, http.StatusBadRequest)
	if !ok {
		return false
	}
	s, _ := e.Code.(string)
	code, err := strconv.Atoi(s)
	return err == nil && code >= 50000 && code < 60000
}
