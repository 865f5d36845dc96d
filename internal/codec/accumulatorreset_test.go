package codec

import (
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestAccumulatorResetStartsOver: a restarted output (a Router's restart
// at its next route) is accumulated as if it came first. Reset kept the
// first output's id, so Accumulated() named the abandoned answer, and
// kept its server-run tool rounds (LocalAI's MCP results), so the new
// output's call under finish "stop" was not given "tool_calls".
func TestAccumulatorResetStartsOver(t *testing.T) {
	chat := Chat(openai.ChatCompletionNewParams{}, true)
	var acc Accumulator
	add := func(data string) {
		t.Helper()
		ev, err := chat.Decode([]byte(data))
		if err != nil {
			t.Fatalf("Decode(%s): %v", data, err)
		}
		if !acc.Add(&ev) {
			t.Fatalf("Add(%s) refused", data)
		}
	}
	add(`{"id":"first","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Looking"}}]}`)
	add(`{"id":"first","object":"chat.completion.chunk","created":1,"model":"m","type":"mcp_tool_result","choices":[]}`)
	acc.Reset()
	add(`{"id":"second","object":"chat.completion.chunk","created":2,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}]}}]}`)
	add(`{"id":"second","object":"chat.completion.chunk","created":2,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	c := acc.Completion()
	if c.ID != "second" {
		t.Errorf("ID %q, want the restarted output's %q", c.ID, "second")
	}
	if len(c.Choices) != 1 || len(c.Choices[0].Message.ToolCalls) != 1 || c.Choices[0].FinishReason != "tool_calls" {
		t.Fatalf("choices %+v, want one call finished \"tool_calls\"", c.Choices)
	}
}
