package codec

import (
	"github.com/openai/openai-go/v3"
	"github.com/tidwall/gjson"
)

// iFlytek Spark's OpenAI-compatible API, whose answers never finish.
//
// spark-api-open.xf-yun.com/v1/chat/completions writes every chunk with
// the platform's status beside the answer, "code" 0, "message" "Success"
// and "sid" (the id again), the assistant's role on every delta, no
// object, no model and no finish_reason member: a whole answer ends with
// a chunk of empty content carrying the usage, then data:[DONE] (the
// platform's HTTP document, its SSE example; lobehub/lobe-chat
// src/libs/agent-runtime/utils/streams/spark.ts; lobehub/lobe-chat#3098).
// A failure is the status alone with a code other than 0 (see
// sse.StatusError). Read as any other stream, every whole answer was a
// cut one (KindTruncated "no finish_reason"), and a Router carried on an
// answer that was whole.

// sparkChunk reports whether c carries Spark's status of success: "code"
// the number 0, "message" "Success", and "sid" its id.
func sparkChunk(c *openai.ChatCompletionChunk) bool {
	x := c.JSON.ExtraFields
	code, msg, sid := gjson.Parse(x["code"].Raw()), gjson.Parse(x["message"].Raw()), gjson.Parse(x["sid"].Raw())
	return code.Type == gjson.Number && code.Raw == "0" && msg.Type == gjson.String && msg.Str == "Success" &&
		sid.Type == gjson.String && sid.Str == c.ID
}
