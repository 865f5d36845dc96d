package codec

import (
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/tidwall/gjson"
)

// nvextField is the top-level member of a chunk in which NVIDIA Dynamo's
// frontend gives what a request asked for by nvext.extra_fields; among
// it, on the chunk that finishes a choice, detailed_finish_reason: the
// engine's own finish reason before its conversion to OpenAI's
// (ai-dynamo/dynamo lib/llm/src/protocols/openai/chat_completions/delta.rs
// and completions/delta.rs, choice_from_postprocessor and
// build_response_nvext).
const nvextField = "nvext"

// nativeFinish returns the field that gives, beside a choice's finish
// reason, the reason its engine named, for finishReason to weigh: the
// choice's native_finish_reason when it has one; else, when finished
// (the choice has a finish reason), the chunk's
// nvext.detailed_finish_reason. Dynamo converts an answer its engine
// cancelled (a weight update, a drain, the backend's abort) into
// finish_reason "stop", as for a whole one, and says "cancelled" only
// there (the test_cancelled_detailed_finish_reason_preserves_openai_finish_reason
// tests of both delta generators); a caller that asks for it, as
// reinforcement-learning rollouts do to resume a cut answer, would
// otherwise take the cut answer for the model's. Neither member is
// looked up on a chunk that finishes nothing, as most chunks do.
func nativeFinish(choice, chunk map[string]respjson.Field, finished bool) respjson.Field {
	if !finished {
		return respjson.Field{} // finishReason weighs it only beside a finish reason
	}
	if f, ok := choice[nativeFinishField]; ok {
		return f
	}
	nv, ok := chunk[nvextField]
	if !ok {
		return respjson.Field{}
	}
	return respjson.NewField(gjson.Get(nv.Raw(), "detailed_finish_reason").Raw)
}
