package simulate

import (
	"syscall"
	"unsafe"
)

// canTryWrite says whether writeOnce works on this system.
const canTryWrite = true

// writeOnce makes one write(2) of b to the non-blocking descriptor fd and
// returns how many bytes it took; 0 if none (a full socket buffer, an
// interrupted call or an error). The call cannot block, so it is made
// without telling the runtime, which would otherwise wake its monitor
// thread for every chunk.
func writeOnce(fd uintptr, b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if errno != 0 || int(n) < 0 {
		return 0
	}
	return int(n)
}
