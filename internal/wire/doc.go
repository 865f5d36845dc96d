// Package wire holds the client's guards on what a server sends over
// HTTP, below the exchange that records it: bodies that openai-go reads
// whole are bounded, a body the server compressed unasked is decoded, and
// servers that close every connection after a response are known, so that
// no request is written to a connection they closed.
package wire
