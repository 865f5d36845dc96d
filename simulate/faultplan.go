package simulate

import (
	"bytes"
	"fmt"
	"net/http"
	"time"
)

// faultPlan is every fault's behaviour in one place. The server asks it at
// two points of a response: once before the headers (beforeHeaders), and
// at the output-bearing chunk where a mid-stream fault strikes (atChunk,
// when Fault.After chunks have gone out); a non-streaming body passes
// through wholeBody. Nothing else in the server knows what a fault does.
type faultPlan struct{ f Fault }

// beforeHeaders applies the faults that strike before the response
// starts, at arrived (server time), and reports whether the response goes
// on. Status faults answer with an OpenAI-style error; a reset before
// headers drops the connection; a wrong content type answers with an HTML
// page; slow headers delay what out sends.
func (p faultPlan) beforeHeaders(out *output, arrived time.Time) bool {
	switch p.f.Kind {
	case FaultRateLimit, FaultServerError, FaultUnavailable:
		var retry time.Duration
		if p.f.Kind == FaultRateLimit {
			retry = p.f.duration()
		}
		out.fail(arrived, &apiError{status: p.status(), message: fmt.Sprintf("simulated fault: %s", p.f.Kind), code: p.code()}, retry)
		return false
	case FaultResetBeforeHeaders:
		out.reset(arrived) // does not return
	case FaultWrongContentType:
		out.page(arrived, http.StatusOK, "text/html; charset=utf-8", []byte(wrongContentPage))
		return false
	case FaultSlowHeaders:
		out.headersAt = arrived.Add(p.f.duration())
	}
	return true
}

// wrongContentPage is what a captive portal or a misconfigured proxy
// answers in place of the stream.
const wrongContentPage = "<!DOCTYPE html>\n<html><head><title>Gateway</title></head><body><h1>Please sign in</h1></body></html>\n"

// strikes reports whether a mid-stream fault strikes at the chunk that
// follows sent output-bearing chunks.
func (p faultPlan) strikes(sent int) bool {
	switch p.f.Kind {
	case FaultReset, FaultStall, FaultMalformed, FaultTruncated, FaultOversized, FaultErrorEvent:
		return sent == p.f.After
	}
	return false
}

// chunkAction says what happens to the chunk a fault strikes at.
type chunkAction int

const (
	sendChunk  chunkAction = iota // send it and carry on
	dropStream                    // drop the connection instead (reset)
	endStream                     // end the body cleanly instead, without the end events
)

// atChunk applies a mid-stream fault at the chunk due at at (server time)
// of a response in format f: a reset, a truncation or an error event
// replaces it, a stall holds it and what follows for Fault.For, a
// malformed or oversized event goes out before it. ok is false if the
// client went away.
func (p faultPlan) atChunk(out *output, f format, at time.Time, stream bool) (a chunkAction, ok bool) {
	switch p.f.Kind {
	case FaultErrorEvent:
		e := &apiError{status: http.StatusInternalServerError, message: "simulated fault: error-event", code: "server_error"}
		if !stream {
			out.fail(at, e, 0)
			return dropStream, false
		}
		return endStream, out.send(at, f.errorEvent(nil, e))
	case FaultReset:
		return dropStream, true
	case FaultTruncated:
		if !stream {
			return dropStream, true // a whole body cut short is a reset
		}
		return endStream, true
	case FaultStall:
		out.stallUntil = at.Add(p.f.duration())
	case FaultMalformed:
		if stream {
			return sendChunk, out.send(at, []byte(malformedEvent))
		}
	case FaultOversized:
		if stream {
			return sendChunk, out.send(at, oversizedEvent(p.f.size()))
		}
	}
	return sendChunk, true
}

// malformedEvent is an event whose data is not valid JSON: a value
// missing where one is due, malformed wherever it comes. JSON cut short
// would read so only because the chunk after it follows: alone at the
// end of a body, a client reads it as an answer cut mid-event.
const malformedEvent = "data: {\"id\":\"malformed\",\"choices\":[{\"delta\":{\"content\":}}]}\n\n"

// oversizedEvent returns a valid chunk whose one data line is n bytes
// long (at least its JSON frame).
func oversizedEvent(n int) []byte {
	const open, end = `data: {"id":"oversized","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"`, `"}}]}`
	pad := max(n-len(open)-len(end), 0)
	b := make([]byte, 0, len(open)+pad+len(end)+2)
	b = append(b, open...)
	b = append(b, bytes.Repeat([]byte{'x'}, pad)...)
	b = append(b, end...)
	return append(b, "\n\n"...)
}

// wholeBody applies a fault to the body of a non-streaming response: a
// malformed fault cuts it in half.
func (p faultPlan) wholeBody(body []byte) []byte {
	if p.f.Kind == FaultMalformed {
		return body[:len(body)/2]
	}
	return body
}

// code returns the OpenAI-style error code of a status fault.
func (p faultPlan) code() string {
	switch p.f.Kind {
	case FaultRateLimit:
		return "rate_limit_exceeded"
	case FaultUnavailable:
		return "service_unavailable"
	}
	return "internal_error"
}

// status returns the HTTP status of a status fault, or 0.
func (p faultPlan) status() int {
	switch p.f.Kind {
	case FaultRateLimit:
		return http.StatusTooManyRequests
	case FaultServerError:
		return http.StatusInternalServerError
	case FaultUnavailable:
		return http.StatusServiceUnavailable
	}
	return 0
}
