package wire

import (
	"sync"
	"time"
)

// Servers that close every connection after a response.
//
// llama.cpp's server closes each connection once it has sent a stream,
// though it answers HTTP/1.1 with Keep-Alive and without Connection:
// close. The transport pools the connection; the next request written to
// it meets the close and fails before any byte of a response came back,
// at once (see StaleWithin). Such a request was never processed, so
// tokenpace's exchange sends it again at once (up to MaxStaleRetries times). And a server seen to close a connection
// that had been idle for less than closeIdle, far shorter than any
// keep-alive timeout, is one that closes after every response: later
// requests to it ask for Connection: close, so that the transport pools
// none of its connections and no request is written to a dead one.

// closeIdle is how long a pooled connection may have been idle when the
// server's close tells that it closes after every response: a keep-alive
// timeout that runs out as a request is written is seconds, not this.
const closeIdle = time.Second

// StaleWithin is how soon after its request was written a reused
// connection must fail for the request to count as never processed: a
// connection the server had closed fails at once, within a round trip.
// One cut later was cut while the server worked on the request (a load
// balancer's idle timeout: Azure's Standard Load Balancer resets both
// ends after four minutes; a server that crashed mid-answer), which may
// have done the work: it is the caller's error, for openai-go's retries
// or a Router's policy to answer, not sent again at once.
const StaleWithin = time.Second

// MaxStaleRetries bounds how many times one request is sent again after
// it failed on a reused connection: each try takes a dead connection out
// of the pool.
const MaxStaleRetries = 8

// ClosingServers is the set of servers ("host:port") known to close every
// connection after a response. Its methods are safe for concurrent use;
// the nil set holds none and learns nothing.
type ClosingServers struct{ m sync.Map }

// Closes reports whether server closes every connection after a response.
func (c *ClosingServers) Closes(server string) bool {
	if c == nil {
		return false
	}
	_, ok := c.m.Load(server)
	return ok
}

// Learn notes that server closed a connection that had been idle for idle
// as a request was written to it.
func (c *ClosingServers) Learn(server string, idle time.Duration) {
	if c != nil && idle < closeIdle {
		c.m.Store(server, struct{}{})
	}
}
