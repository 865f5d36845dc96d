package tokenpace

import (
	"mime"
	"net/http"
	"strings"
)

// StreamHeaders are the response headers that decide whether a stream
// reaches the caller token by token through proxies, as the answering HTTP
// request received them. Only these are kept, never the whole header map,
// which may carry cookies or tokens. The zero value means no response came.
type StreamHeaders struct {
	// ContentType is the Content-Type header; a stream needs
	// text/event-stream. Empty when absent.
	ContentType string
	// CacheControl is the Cache-Control header (servers send no-cache).
	// Empty when absent.
	CacheControl string
	// AccelBuffering is the X-Accel-Buffering header: "no" asks nginx and
	// proxies that honour it not to buffer the response. Empty when
	// absent, as it is from many servers that stream well.
	AccelBuffering string
}

// maxHeaderValue bounds each value StreamHeaders keeps.
const maxHeaderValue = 256

// streamHeaders picks the StreamHeaders out of h.
func streamHeaders(h http.Header) StreamHeaders {
	get := func(k string) string {
		v := h.Get(k)
		return v[:min(len(v), maxHeaderValue)]
	}
	return StreamHeaders{
		ContentType:    get("Content-Type"),
		CacheControl:   get("Cache-Control"),
		AccelBuffering: get("X-Accel-Buffering"),
	}
}

// isEventStream reports whether a Content-Type is text/event-stream.
func isEventStream(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "text/event-stream"
}

// isJSON reports whether ct, a Content-Type, is JSON's.
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}
