package codec

import (
	"strings"

	"github.com/openai/openai-go/v3/responses"
)

// finalOutput gives out, the final event ev of a Responses stream decoded
// to, the output its response holds that no event before it gave the
// caller: a relay that fakes a stream from a whole response sends little
// or nothing but response.completed. LiteLLM's proxy does so for a model
// it does not know to stream (a custom model, as one served by vLLM, not in
// its price map: BerriAI/litellm#21090) and did so for o1-pro
// (BerriAI/litellm#9419, #9545): its MockResponsesAPIStreamingIterator
// sends the text, if any, as deltas (at first not even those) and then
// only response.completed, which alone holds a function call. Without
// this the caller's Text lacks the answer, its first token is never seen,
// and a Router takes the answer for an empty one and asks its next route
// again (billed twice, the call lost).
//   - The text of the response's message items, when no text reached the
//     caller, is the final event's content, unless it is vMLX's
//     placeholder for an answer never begun (see noResponse).
//   - A tool call (see callOutput) is the final event's, a tool call and
//     an output, when nothing was output before it. A stream that did
//     output (SGLang's and TensorRT-LLM's gpt-oss streams reason, then
//     leave the call to response.completed) keeps its count of outputs.
//
// It runs once a stream, on its final event.
func (s *ResponseStream) finalOutput(out *Event, ev *responses.ResponseStreamEventUnion) {
	res := &ev.Response
	if s.all.n == 0 {
		if t := messageText(res); t != "" && !noResponse(t) {
			out.Chunk.Choices[0].Delta.Content = t
			out.Outputs = 1
			s.all.add(t)
		}
	}
	if s.output {
		return
	}
	for i := range res.Output {
		if it := &res.Output[i]; callOutput(it.Type, it.Execution) {
			out.ToolCall, out.Outputs = true, 1
			return
		}
	}
}

// messageText returns the text of the output_text parts of the message
// items of res. Unlike Response.OutputText it leaves out the parts of
// other items (LocalAI writes a reasoning item's text as output_text).
func messageText(res *responses.Response) string { return messageItemParts(res, "output_text") }

// messageItemParts returns what the parts of type typ ("output_text" or
// "refusal") of the message items of res hold, one after the other.
func messageItemParts(res *responses.Response, typ string) string {
	var b strings.Builder
	for i := range res.Output {
		if res.Output[i].Type != "message" {
			continue
		}
		for _, part := range res.Output[i].Content {
			switch {
			case part.Type != typ:
			case typ == "refusal":
				b.WriteString(part.Refusal)
			default:
				b.WriteString(part.Text)
			}
		}
	}
	return b.String()
}
