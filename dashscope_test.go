package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestDashScopeOutputInspectionNotCounted: DashScope's content screen
// stops an answer it will not send with an error event inside the 200
// stream, code "data_inspection_failed", the refusal its error codes give
// status 400 ("<400> InternalError.Algo.DataInspectionFailed", the same
// screen's refusal of an input before the stream;
// help.aliyun.com/zh/model-studio/error-code#inappropriate-content). It
// counted as the server's failure: a breaker of one failure opened on a
// server that was well after one prompt it screened out. The caller now
// gets status 400 with the server's message, and the breaker stays
// closed.
func TestDashScopeOutputInspectionNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wantRefusalsNotCounted(t, "dashscope-output-inspection-error", http.StatusBadRequest, chatErr(t))
	})
}
