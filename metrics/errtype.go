package metrics

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"

	"github.com/openai/openai-go/v3"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// errorType classifies err for the error.type attribute and the Recorder's
// error counts, with low cardinality and no message text: an HTTP status
// code for API errors ("429", "503"), "canceled" and "timeout" for context
// endings, "unexpected_eof" for a stream cut short, "timeout" for network
// timeouts; otherwise the value of an ErrorType() string method anywhere in
// the chain, else the error's Go type name.
func errorType(err error) string {
	if err == nil {
		return ""
	}
	return classify(err)
}

// classify is errorType for a non-nil err; apart so that the error targets
// it moves to the heap cost nothing on the path without an error.
func classify(err error) string {
	var apiErr *openai.Error
	var netErr net.Error
	switch {
	case errors.As(err, &apiErr) && apiErr.StatusCode > 0:
		return strconv.Itoa(apiErr.StatusCode)
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected_eof"
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	}
	return semconv.ErrorType(err).Value.AsString()
}
