package metrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/tokenpace/tokenpace"
)

type typedErr struct{}

func (typedErr) Error() string     { return "secret detail" }
func (typedErr) ErrorType() string { return "custom" }

func TestErrorType(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{&openai.Error{StatusCode: 429}, "429"},
		{&tokenpace.StreamError{Kind: tokenpace.KindRequest, Err: &openai.Error{StatusCode: 503}}, "503"},
		{&tokenpace.StreamError{Kind: tokenpace.KindReset, Err: io.ErrUnexpectedEOF}, "stream_reset"},
		{&tokenpace.StreamError{Kind: tokenpace.KindErrorEvent, Err: &openai.Error{StatusCode: 200, Type: "server_error"}}, "error_event"},
		{&tokenpace.StreamError{Kind: tokenpace.KindTruncated}, "stream_truncated"},
		{&tokenpace.StreamError{Kind: tokenpace.KindContentType, Detail: "text/html"}, "content_type"},
		{&tokenpace.StreamError{Kind: tokenpace.KindMalformed, Err: errors.New("bad json")}, "malformed_event"},
		{&tokenpace.StreamError{Kind: tokenpace.KindTooLarge, Detail: "line"}, "too_large"},
		// A hook or validator of the caller's panicked: its kind, not the panic value's type.
		{&tokenpace.StreamError{Kind: tokenpace.KindPanic, Detail: "Hooks.Done", Err: errors.New("boom")}, "panic"},
		{&tokenpace.BudgetError{Phase: tokenpace.PhaseTTFT}, "budget_exceeded"},
		{&tokenpace.StreamError{Kind: tokenpace.KindSkipped, Target: "a", Err: tokenpace.ErrCircuitOpen}, "circuit_open"},
		{fmt.Errorf("x: %w", tokenpace.ErrSuperseded), "superseded"},
		{&tokenpace.StreamError{Kind: tokenpace.KindInvalid, Err: fmt.Errorf("%w: bad json", tokenpace.ErrInvalidOutput)}, "invalid_output"},
		{tokenpace.ErrStreamClosed, "stream_closed"},
		{context.Canceled, "canceled"},
		{fmt.Errorf("read: %w", context.DeadlineExceeded), "timeout"},
		{io.ErrUnexpectedEOF, "unexpected_eof"},
		// A request whose connection failed: its kind, not "*tokenpace.StreamError".
		{&tokenpace.StreamError{Kind: tokenpace.KindRequest, Err: &url.Error{Op: "Post", URL: "http://h/v1", Err: io.EOF}}, "connection_closed"},
		{&tokenpace.StreamError{Kind: tokenpace.KindRequest, Err: &url.Error{Op: "Post", URL: "http://h/v1",
			Err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}}}, "connection_reset"},
		{&tokenpace.StreamError{Kind: tokenpace.KindRequest, Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}, "connection_refused"},
		{&tokenpace.StreamError{Kind: tokenpace.KindRequest, Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("no route")}}, "network"},
		{&tokenpace.StreamError{Kind: tokenpace.KindRequest, Err: errors.New("something else")}, "request"},
		{fmt.Errorf("wrapped: %w", typedErr{}), "custom"},
		{errors.New("sk-secret-key in a message"), "*errors.errorString"},
	}
	for _, tt := range tests {
		if got := ErrorType(tt.err); got != tt.want {
			t.Errorf("ErrorType(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestParseServer(t *testing.T) {
	tests := []struct {
		url  string
		want server
		ok   bool
	}{
		{"https://api.openai.com/v1", server{"api.openai.com", 443}, true},
		{"http://user:pass@10.0.0.7:8000/v1/?key=sk-x", server{"10.0.0.7", 8000}, true},
		{"http://[::1]/v1", server{"::1", 80}, true},
		{"/v1", server{}, false},
		{"://bad", server{}, false},
	}
	for _, tt := range tests {
		got, ok := parseServer(tt.url)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseServer(%q) = %+v, %v, want %+v, %v", tt.url, got, ok, tt.want, tt.ok)
		}
	}
}
