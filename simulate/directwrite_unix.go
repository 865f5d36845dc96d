//go:build unix && !linux

package simulate

import "syscall"

// canTryWrite says whether writeOnce works on this system.
const canTryWrite = true

// writeOnce makes one write(2) of b to the non-blocking descriptor fd and
// returns how many bytes it took; 0 if none (a full socket buffer, an
// interrupted call or an error).
func writeOnce(fd uintptr, b []byte) int {
	n, err := syscall.Write(int(fd), b)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
