package codec

import "github.com/tidwall/gjson"

// hostedToolEvent reports whether data, a chat event that holds an error,
// is instead the status of a tool the server runs itself, whose error is
// the tool's and not the stream's. FriendliAI's serverless tools endpoint
// (api.friendli.ai/serverless/tools/v1) streams such events between the
// chat chunks: {name, status, message null, parameters [{name, value}],
// result, error, timestamp, usage null, tool_call_id}, the error
// {"type": "INVALID_PARAMETER" | "UNKNOWN", "msg": …} when the status is
// ERRORED; the model answers on after it (friendliai/ai-provider
// dist/index.js: createOpenAICompatibleChatChunkSchema, doStream's
// transform, which reads an ERRORED tool as a failed tool result and the
// stream on). Read as the stream's error it ended the answer before its
// first word. Checked only for an event that holds an error, so it costs
// nothing on a chunk of the answer.
func hostedToolEvent(data []byte) bool {
	r := gjson.GetManyBytes(data, "status", "name", "parameters", "tool_call_id", "choices")
	switch r[0].Str {
	case "STARTED", "UPDATING", "ENDED", "ERRORED":
	default:
		return false
	}
	return r[1].Type == gjson.String && r[2].IsArray() && r[3].Exists() && !r[4].Exists()
}
