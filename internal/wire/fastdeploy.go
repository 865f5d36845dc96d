package wire

import (
	"net/http"
	"strings"

	"github.com/tidwall/gjson"
)

// Request errors FastDeploy answers with 500.
//
// Baidu's FastDeploy (PaddlePaddle/FastDeploy,
// fastdeploy/entrypoints/openai/api_server.py, create_chat_completion and
// create_completion) answers every ErrorResponse its handlers return
// before a stream with 500, its ErrorInfo dumped whole:
// {"error":{"message":…,"type":…,"param":…,"code":…}}. Its refusals of a
// request are among them (serving_chat.py and serving_completion.py,
// create_chat_completion and create_completion): a ParameterError, which
// names the field at fault as param, typed "invalid_request_error" (chat)
// or "invalid_request" (completions); and the input checks of its engine
// client (fastdeploy/entrypoints/engine_client.py, add_requests and
// valid_parameters: a prompt over max_model_len, max_tokens out of
// range, too many or too long stop sequences), raised as plain
// exceptions and typed "invalid_request_error" with no param, the chat
// message prefixed "request[<id>] generator error: " and followed by the
// traceback. Sent again, such a request gets the same answer; counted by a
// breaker, a few open it on a server that is well. The same type and
// shape also wrap the server's own failures (its task queue's send
// failing, say): only a named param or one of those checks' messages
// makes the 500 a request error.

// fastDeployRequestChecks are the beginnings of the messages of
// FastDeploy's input checks (engine_client.py, add_requests and
// valid_parameters).
var fastDeployRequestChecks = []string{
	"Input text is too long, input_ids_len (",
	"Length of input token(",
	"max_tokens can be defined [1, ",
	"Length of stop (",
	"Length of stop_seqs(",
}

// fastDeployGenerator is the prefix of FastDeploy's chat handler to the
// message of an exception raised while it prepared the request.
const fastDeployGenerator = " generator error: "

// FastDeployRequestError reports whether res is a request error that
// FastDeploy answered with 500 (see fastDeployRequestChecks): an error
// object of exactly its four members, of its request error's type, that
// names the field at fault or holds one of its input checks' messages. It
// reads the body, bounded already (BoundErrorBody), and puts it back.
func FastDeployRequestError(res *http.Response) bool {
	if res == nil || res.Body == nil || res.StatusCode != http.StatusInternalServerError {
		return false
	}
	body, err := ErrorBody(res)
	if err != nil {
		return false
	}
	e := gjson.GetBytes(body, "error")
	if !e.IsObject() || len(e.Map()) != 4 || !e.Get("param").Exists() || !e.Get("code").Exists() {
		return false
	}
	msg, typ, param := e.Get("message"), e.Get("type").Str, e.Get("param")
	if msg.Type != gjson.String || typ != "invalid_request_error" && typ != "invalid_request" {
		return false
	}
	if param.Type == gjson.String && param.Str != "" {
		return true // a ParameterError, which names the request's field
	}
	m := msg.Str
	if strings.HasPrefix(m, "request[") {
		i := strings.Index(m, "]"+fastDeployGenerator)
		if i < 0 {
			return false
		}
		m = m[i+1+len(fastDeployGenerator):]
	}
	for _, p := range fastDeployRequestChecks {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}
