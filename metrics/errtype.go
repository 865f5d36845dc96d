package metrics

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"syscall"

	"github.com/openai/openai-go/v3"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/tokenpace/tokenpace"
)

// ErrorType classifies err for the error.type attribute and the Recorder's
// error counts, with low cardinality and no message text: an HTTP status
// code for API errors ("429", "503"; an error event in a stream is
// "error_event", not its stream's "200"); tokenpace's own endings
// ("budget_exceeded", "circuit_open", "admission", "superseded",
// "invalid_output", "stream_closed", and for a *tokenpace.StreamError its
// kind: "stream_reset", "stream_truncated", "malformed_event",
// "content_type", "error_event", "too_large", and "panic" when a function
// of the caller's panicked); "canceled" and
// "timeout" for context endings, "unexpected_eof" for a body cut short,
// "timeout" for network timeouts; a request whose connection failed
// "connection_closed" (closed before an answer), "connection_reset",
// "connection_refused" or "network", and any other failed request of
// tokenpace's "request"; otherwise the value of an ErrorType()
// string method anywhere in the chain, else the error's Go type name.
func ErrorType(err error) string {
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
	var opErr *net.OpError
	var streamErr *tokenpace.StreamError
	switch {
	case errors.As(err, &apiErr) && apiErr.StatusCode >= 300:
		// An error status; an error event comes in a 200 stream, and is
		// an error_event below.
		return strconv.Itoa(apiErr.StatusCode)
	case errors.Is(err, tokenpace.ErrBudgetExceeded):
		return "budget_exceeded"
	case errors.Is(err, tokenpace.ErrCircuitOpen):
		return "circuit_open"
	case errors.Is(err, tokenpace.ErrAdmission):
		return "admission"
	case errors.Is(err, tokenpace.ErrSuperseded):
		return "superseded"
	case errors.Is(err, tokenpace.ErrInvalidOutput):
		return "invalid_output"
	case errors.Is(err, tokenpace.ErrStreamClosed):
		return "stream_closed"
	case errors.As(err, &streamErr) && streamKinds[streamErr.Kind] != "" && streamErr.Kind != tokenpace.KindRequest:
		return streamKinds[streamErr.Kind]
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected_eof"
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	case errors.Is(err, io.EOF):
		// A request whose connection the server closed before answering.
		return "connection_closed"
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE):
		return "connection_reset"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection_refused"
	case errors.As(err, &opErr):
		return "network"
	case errors.As(err, &streamErr):
		// A request that failed otherwise: the kind, not a Go type name.
		return "request"
	}
	return semconv.ErrorType(err).Value.AsString()
}

// streamKinds names the kinds of StreamError. KindRequest has no name of
// its own: its cause (a status code, a timeout) says more.
var streamKinds = map[tokenpace.ErrorKind]string{
	tokenpace.KindContentType: "content_type",
	tokenpace.KindMalformed:   "malformed_event",
	tokenpace.KindErrorEvent:  "error_event",
	tokenpace.KindTruncated:   "stream_truncated",
	tokenpace.KindReset:       "stream_reset",
	tokenpace.KindTooLarge:    "too_large",
	tokenpace.KindPanic:       "panic",
}
