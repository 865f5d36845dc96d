package wire

import (
	"net/http"
)

// Request errors KServe answers with 500.
//
// KServe's OpenAI endpoints (kserve/kserve, python/kserve/kserve/protocol/
// rest/openai) answer every OpenAIError a model raises with 500, the
// exception's class name as the error's type and the status as a string
// code: {"error":{"message":…,"type":"OpenAIError","param":"","code":"500"}}
// (errors.py, openai_error_handler). Its Hugging Face backend
// (python/huggingfaceserver/huggingfaceserver/generative_model.py) raises
// one for requests it cannot serve: a prompt over the model's context, n or
// best_of above 1, a frequency_penalty, echo on an encoder-decoder model,
// a content part other than text; its vLLM backend answered a prompt over
// the context so until kserve/kserve#3886 (August 2024). Sent again, such
// a request gets the same answer; counted by a breaker, a few of them open
// it on a server that is well. A model without a chat template raises one
// too, for every request: that is the server's failure and stays a 500.

// kserveRequestErrors are the messages of the OpenAIErrors KServe's
// Hugging Face backend raises for a request (generative_model.py).
var kserveRequestErrors = []string{
	"maximum context length is",
	"prompt is required",
	"'frequency_penalty' is not supported",
	"'best_of' > 1 is not supported",
	"'n' > 1 is not supported",
	"'echo' is not supported",
	"Unknown part type:",
}

// KServeRequestError reports whether res is a request error KServe's
// OpenAI endpoints answered with 500 (see kserveRequestErrors). It reads
// the body, bounded already (BoundErrorBody), and puts it back.
func KServeRequestError(res *http.Response) bool {
	e, ok := errorOf(res, http.StatusInternalServerError)
	return ok && e.Type == "OpenAIError" && e.Code == "500" && says(e.Message, kserveRequestErrors)
}
