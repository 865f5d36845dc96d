//go:build !unix

package simulate

// canTryWrite says whether writeOnce works on this system: not here, so
// every chunk goes through the http.ResponseWriter.
const canTryWrite = false

func writeOnce(fd uintptr, b []byte) int { return 0 }
