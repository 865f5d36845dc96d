package tokenpace_test

import (
	"testing"
	"testing/synctest"
)

// TestChituOverloadSentAgain: Chitu refuses a request past its pool of
// max_reqs requests with 403 and FastAPI's {"detail": "exceeding server
// processing capacity"} (thu-pacman/chitu chitu/serve.py,
// create_chat_completion). The caller got it as a request it may not
// make: sent once, not counted, and a Router handed it back instead of
// trying its next route. It is now the 503 it is: sent again, and a
// Router whose first route stays full gets its answer from the next.
func TestChituOverloadSentAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantOverloadSentAgain(t, "chitu-capacity-403-detail", "DeepSeek-R1", nil)
	})
}
