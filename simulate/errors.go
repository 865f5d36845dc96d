package simulate

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// apiError is an OpenAI-style error response:
// {"error":{"message","type","param","code"}}.
type apiError struct {
	status  int
	message string
	typ     string
	param   string // empty: null
	code    string // empty: null
}

func (e *apiError) Error() string { return "simulate: " + e.message }

func badRequest(param, message string) *apiError {
	return &apiError{status: http.StatusBadRequest, message: message, typ: "invalid_request_error", param: param}
}

// modelNotFound is the answer to a request for a model the server does not
// serve, as OpenAI gives it: 404, of type invalid_request_error, with code
// model_not_found.
func modelNotFound(name string) *apiError {
	return &apiError{status: http.StatusNotFound, typ: "invalid_request_error", param: "model", code: "model_not_found",
		message: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", name)}
}

func errorType(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status == http.StatusNotFound:
		return "not_found_error"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

// writeError writes e as the whole response.
func writeError(w http.ResponseWriter, e *apiError) {
	b := errorBody(e)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(e.status)
	w.Write(b)
}

// errorBody returns the JSON body of e.
func errorBody(e *apiError) []byte {
	typ := e.typ
	if typ == "" {
		typ = errorType(e.status)
	}
	var body struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
			Code    *string `json:"code"`
		} `json:"error"`
	}
	body.Error.Message = e.message
	body.Error.Type = typ
	if e.param != "" {
		body.Error.Param = &e.param
	}
	if e.code != "" {
		body.Error.Code = &e.code
	}
	b, _ := json.Marshal(body)
	return b
}
