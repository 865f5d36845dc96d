package codec

import (
	"github.com/openai/openai-go/v3"
	"github.com/tidwall/gjson"
)

// repetitionStop is the stop_reason by which vLLM's engine says it
// stopped an answer whose tail repeated a pattern (vllm-project/vllm
// vllm/v1/core/sched/utils.py, check_stop, for a request with
// repetition_detection); the choice's finish_reason is then "repetition".
const repetitionStop = "repetition_detected"

// repetitionFinish gives a chat choice that finished "tool_calls" with
// vLLM's repetition stop beside it the finish reason "repetition". Once a
// call has streamed, vLLM's chat stream says "tool_calls" whatever the
// engine's reason (vllm/entrypoints/openai/chat_completion/serving.py,
// chat_completion_stream_generator; vllm-project/vllm#53269, #53270), so
// a call whose arguments the repetition detector stopped mid-string reads
// as a whole one, which the caller would run. Like a text the detector
// stopped, it is not continued: a continuation would carry on the loop.
// It is called only for a choice that finishes "tool_calls".
func repetitionFinish(ch *openai.ChatCompletionChunkChoice) {
	if f, ok := ch.JSON.ExtraFields["stop_reason"]; ok && gjson.Parse(f.Raw()).String() == repetitionStop {
		ch.FinishReason = "repetition"
	}
}
