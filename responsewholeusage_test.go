package tokenpace_test

import (
	"context"
	"testing"

	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
)

// freebuffWhole is a whole /v1/responses answer as freebuff2api-wokers
// made one of its upstream's chat stream before 4579325
// (pingmike2/freebuff2api-wokers worker.js, responsesToNonStream: the
// upstream chunk's usage set on the response as it is, resp.usage = usage
// || responsesUsage()): its usage in the chat API's names.
const freebuffWhole = `{"id":"resp_k3v9q2xa","object":"response","created_at":1786000000,"status":"completed","model":"m","output":[{"id":"msg_p7d2k9wz","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Latency budgets keep agents on time.","annotations":[]}]}],"usage":{"prompt_tokens":23,"completion_tokens":7,"total_tokens":30}}`

// TestNewResponseChatNamedUsage: a whole Responses answer whose usage is
// written with the chat API's names gives its counts to Timing, as the
// same relay's streamed answer does (see responsechatusage.go), through
// the Client and through a Router; with max_output_tokens equal to its
// output count, it is read as cut there, as a completed answer on that
// limit is. Before, Timing said no usage and the cut was not seen.
func TestNewResponseChatNamedUsage(t *testing.T) {
	c, r := oneRoute(t)
	for _, tc := range []struct {
		name   string
		limit  int
		status responses.ResponseStatus
	}{
		{"under its limit", 64, responses.ResponseStatusCompleted},
		{"on its limit", 7, responses.ResponseStatusIncomplete},
	} {
		for _, via := range []string{"Client", "Router"} {
			var tm *tokenpace.Timing
			var res *responses.Response
			var err error
			if via == "Client" {
				res, err = c.NewResponse(context.Background(), respond("m", tc.limit), replaced(freebuffWhole), tokenpace.WithTimingInto(&tm))
			} else {
				res, err = r.NewResponse(context.Background(), respond("m", tc.limit), replaced(freebuffWhole), tokenpace.WithTimingInto(&tm))
			}
			if err != nil || res == nil || tm == nil {
				t.Fatalf("%s %s: NewResponse() = %v, %v, timing %v; want the answer", tc.name, via, res, err, tm)
			}
			if !tm.UsageReported || tm.PromptTokens != 23 || tm.OutputTokens != 7 {
				t.Errorf("%s %s: Timing usage (%v, %d, %d), want (true, 23, 7)", tc.name, via, tm.UsageReported, tm.PromptTokens, tm.OutputTokens)
			}
			if res.Status != tc.status {
				t.Errorf("%s %s: status %q, want %q", tc.name, via, res.Status, tc.status)
			}
		}
	}
}
