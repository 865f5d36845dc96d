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
	// Cache is the status of a gateway's response cache, as the gateway
	// names it: Helicone's Helicone-Cache, Cloudflare AI Gateway's
	// cf-aig-cache-status, Portkey's x-portkey-cache-status (the first
	// present). "HIT" (see CacheHit): the gateway answered from its cache,
	// and a cached stream comes in one burst, as Helicone replays it
	// (Helicone/helicone worker/src/lib/util/cache/cacheFunctions.ts,
	// getCachedResponse: every stored chunk at once), whatever the
	// server's pace was. Empty when absent.
	Cache string
}

// cacheHeaders are the headers that carry a gateway's cache status, in the
// order StreamHeaders.Cache takes them.
var cacheHeaders = [...]string{"Helicone-Cache", "Cf-Aig-Cache-Status", "X-Portkey-Cache-Status"}

// CacheHit reports whether the response came from a gateway's response
// cache: its Cache says HIT (Portkey's "SEMANTIC HIT" too), in any case.
func (h StreamHeaders) CacheHit() bool {
	return strings.Contains(strings.ToUpper(h.Cache), "HIT")
}

// maxHeaderValue bounds each value StreamHeaders keeps.
const maxHeaderValue = 256

// streamHeaders picks the StreamHeaders out of h.
func streamHeaders(h http.Header) StreamHeaders {
	get := func(k string) string {
		v := h.Get(k)
		return v[:min(len(v), maxHeaderValue)]
	}
	sh := StreamHeaders{
		ContentType:    get("Content-Type"),
		CacheControl:   get("Cache-Control"),
		AccelBuffering: get("X-Accel-Buffering"),
	}
	for _, k := range cacheHeaders {
		if sh.Cache = get(k); sh.Cache != "" {
			break
		}
	}
	return sh
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
