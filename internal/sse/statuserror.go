package sse

import "github.com/tidwall/gjson"

// StatusError reports whether data, a JSON object, is a platform's
// status that says a request failed: no choices, a "code" that is a
// number other than 0, and a string "msg" or "message" (see
// StatusMessage). iFlytek's OpenAI-compatible API puts its status on
// every chunk of an answer, code 0 and message "Success" beside the
// choices (spark-api-open.xf-yun.com; lobehub/lobe-chat
// src/libs/agent-runtime/utils/streams/spark.ts), and sends a failure in
// its 200 stream as that status alone, its text in "msg", with "Sid" and
// "timeStamp": {"code":10012,"msg":"EngineInternalError:…","Sid":…}, as
// the whole body before any chunk or as an event after some
// (router-for-me/CLIProxyAPI internal/runtime/executor,
// openai_compat_executor.go and its Xunfei tests;
// BigPizzaV3/CodexPlusPlus#457).
func StatusError(data []byte) bool {
	code := gjson.GetBytes(data, "code")
	if code.Type != gjson.Number || code.Num == 0 || gjson.GetBytes(data, "choices").Exists() {
		return false
	}
	_, ok := StatusMessage(data)
	return ok
}

// StatusMessage returns the text of a platform's status, data: its
// "msg", else its "message", when one is a string.
func StatusMessage(data []byte) (string, bool) {
	for _, key := range [...]string{"msg", "message"} {
		if m := gjson.GetBytes(data, key); m.Type == gjson.String {
			return m.Str, true
		}
	}
	return "", false
}
